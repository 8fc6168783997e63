import Foundation
import SyncKernel

/// `synckernel bench --grid`: every row count against every difference count, both modes side
/// by side, with a time bound instead of a hang.
///
/// For each row count (smallest first) the two stores are loaded once and copied for every
/// point, so a point pays its own open, differences and exchange but not the load. Before a
/// row count is loaded, its load time is estimated from the loads already measured (`Growth`:
/// the kernel's save path and its leaf-index commit fitted separately, plus the plain SQLite
/// baseline); before a point runs, its time is estimated from the same point at smaller row
/// counts. Anything estimated above `boundSeconds` is skipped with the estimate in its note.
/// Invariant: nothing is hard-coded but the grid's shape and the bound; every estimate comes
/// from this run's own measurements.
public struct BenchGrid: Sendable {
    /// Row counts, run smallest first.
    public var rowCounts = [1_000, 100_000, 1_000_000]
    /// Difference counts.
    public var differences = [0, 1, 10, 100, 1_000]
    /// Modes, side by side.
    public var modes: [BenchMode] = [.spec, .fast]
    /// Seed of every run.
    public var seed: UInt64 = 1
    /// The encoded size each row aims at.
    public var rowBytes = 500
    /// The longest a row count's load, or one point, may be estimated to take.
    public var boundSeconds: Double = 600

    /// The default grid: N in {1e3, 1e5, 1e6}, D in {0, 1, 10, 100, 1000}, both modes, 10 minutes.
    public init() {}

    /// Runs the grid, reporting each finished or skipped point through `progress`.
    public func run(progress: (String) -> Void) throws -> BenchGridResult {
        var points: [BenchGridPoint] = []
        var loads: [(rows: Int, save: Double, upkeep: Double, sqlite: Double)] = []
        var pointTimes: [String: [(rows: Int, seconds: Double)]] = [:]
        for rows in rowCounts.sorted() {
            let estimate = loadEstimate(rows, after: loads)
            if let estimate, estimate.seconds > boundSeconds {
                let note = "skipped: load of \(BenchGridResult.label(rows)) rows estimated at \(estimate.description) "
                    + "> bound \(BenchGridResult.seconds(boundSeconds))"
                progress("N=\(rows): \(note)")
                for count in differences {
                    for mode in modes {
                        points.append(BenchGridPoint(rows: rows, differences: count, mode: mode, report: nil, skipped: note))
                    }
                }
                continue
            }
            let directory = try KernelBench.makeTemporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            progress("N=\(rows): loading two stores" + (estimate.map { ", estimated at \($0.description)" } ?? ""))
            let loaded = try LoadedStores.load(rows: rows, source: RowSource(seed: seed, rowBytes: rowBytes), into: directory)
            let upkeep = loaded.upkeepSeconds.reduce(0, +) / 2
            loads.append((rows, loaded.loadSeconds.reduce(0, +) / 2 - upkeep, upkeep, loaded.sqliteSeconds))
            progress(String(format: "N=%d: loaded in %.2f s and %.2f s", rows, loaded.loadSeconds[0], loaded.loadSeconds[1]))
            for count in differences {
                for mode in modes {
                    let key = "\(count)/\(mode.rawValue)"
                    if let growth = Growth(pointTimes[key] ?? []), growth.seconds(at: rows) > boundSeconds {
                        let note = "skipped: estimated at \(BenchGridResult.seconds(growth.seconds(at: rows))) "
                            + "(~N^\(String(format: "%.2f", growth.exponent)) from N=\(BenchGridResult.label(growth.rows))) "
                            + "> bound \(BenchGridResult.seconds(boundSeconds))"
                        progress("N=\(rows) D=\(count) \(mode.rawValue): \(note)")
                        points.append(BenchGridPoint(rows: rows, differences: count, mode: mode, report: nil, skipped: note))
                        continue
                    }
                    let started = ContinuousClock.now
                    let report = try runPoint(rows: rows, differences: count, mode: mode, loaded: loaded, in: directory)
                    pointTimes[key, default: []].append((rows, started.duration(to: .now).seconds))
                    progress(BenchGridResult.line(report))
                    points.append(BenchGridPoint(rows: rows, differences: count, mode: mode, report: report, skipped: nil))
                }
            }
        }
        return BenchGridResult(points: points, boundSeconds: boundSeconds)
    }

    /// One point on copies of the loaded stores, in a folder of its own removed afterwards.
    private func runPoint(rows: Int, differences: Int, mode: BenchMode, loaded: LoadedStores,
                          in directory: String) throws -> BenchReport {
        let folder = directory + "/point-\(differences)-\(mode.rawValue)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = BenchConfig(rows: rows, differences: differences, mode: mode, seed: seed, rowBytes: rowBytes)
        return try KernelBench.run(config, on: loaded, at: try loaded.copy(into: folder))
    }

    /// The estimated time to load `rows` rows into both stores and the SQLite baseline, from
    /// the loads measured so far, with how it was reached; nil before anything was measured.
    private func loadEstimate(_ rows: Int, after loads: [(rows: Int, save: Double, upkeep: Double, sqlite: Double)])
        -> (seconds: Double, description: String)? {
        guard let save = Growth(loads.map { ($0.rows, $0.save) }),
              let upkeep = Growth(loads.map { ($0.rows, $0.upkeep) }),
              let sqlite = Growth(loads.map { ($0.rows, $0.sqlite) }) else { return nil }
        let perStore = save.seconds(at: rows) + upkeep.seconds(at: rows)
        let total = 2 * perStore + sqlite.seconds(at: rows)
        let fitted = loads.count >= 2
            ? "fitted on N=" + loads.suffix(2).map { BenchGridResult.label($0.rows) }.joined(separator: " and ")
            : "linear from N=" + loads.map { BenchGridResult.label($0.rows) }.joined()
        return (total, "\(BenchGridResult.seconds(total)) (\(BenchGridResult.seconds(perStore)) per store: save path "
                + "~N^\(String(format: "%.2f", save.exponent)), structure upkeep ~N^\(String(format: "%.2f", upkeep.exponent)); "
                + "plain SQLite baseline \(BenchGridResult.seconds(sqlite.seconds(at: rows))); \(fitted))")
    }
}
