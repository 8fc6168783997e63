import Foundation

/// The long-run soak: seeded fleets of 3 to 7 devices over all thirteen namespaces, under loss,
/// duplication, reordering, partitions that heal, crashes that restart from the SQLite files and
/// wall clocks up to 24 hours off, each checked for convergence, against an oracle store that
/// merged every write, and for storm-guard trips (see `SoakFleet` for the run, `SoakOracle` for
/// the oracle, docs/hardening.md `## Soak` for the checks).
///
/// Invariants: fleet `seed` is the same run wherever it runs, alone or among others
/// (`runFleet(seed:)` replays it bit for bit, `SoakFleetResult.trace` shows it); a fleet's files
/// live in a temporary folder removed when it ends; an error a fleet throws is one of its
/// failures, never the end of the run.
public enum SoakHarness {
    /// How many fleets `make soak` runs.
    public static let defaultFleets = 1_000

    /// Runs fleet `seed` and checks it, its files in a new folder inside `parent` (the system's
    /// temporary folder when nil).
    public static func runFleet(seed: UInt64, parent: String? = nil) -> SoakFleetResult {
        let started = ContinuousClock.now
        func wallMillis() -> Int {
            let elapsed = started.duration(to: .now).components
            return Int(elapsed.seconds) * 1000 + Int(elapsed.attoseconds / 1_000_000_000_000_000)
        }
        let directory = (parent.map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? NSTemporaryDirectory())
            + "synckernel-soak-\(seed)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fleet: SoakFleet
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            fleet = try SoakFleet(seed: seed, directory: directory)
        } catch {
            return SoakFleetResult(seed: seed, plan: "not built", devices: 0, writes: 0, crashes: 0, crashesAfterWrite: 0,
                                   partitions: 0, isolations: 0, frames: 0, bytes: 0, lostFrames: 0, storms: 0, refusals: 0,
                                   settleMillis: 0, wallMillis: wallMillis(), trace: "",
                                   failures: [SoakFailure(kind: .error, detail: "the fleet could not be built: \(error)")])
        }
        defer { fleet.close() }
        return fleet.run(wallMillis: wallMillis)
    }

    /// Runs `fleets` fleets, seeds `firstSeed` upwards, their files inside `parent` (as
    /// `runFleet(seed:parent:)`), calling `progress` after each.
    public static func run(fleets: Int, firstSeed: UInt64 = 1, parent: String? = nil,
                           progress: (SoakFleetResult) -> Void = { _ in }) -> SoakSummary {
        let started = ContinuousClock.now
        var results: [SoakFleetResult] = []
        for offset in 0..<UInt64(max(fleets, 0)) {
            let result = runFleet(seed: firstSeed &+ offset, parent: parent)
            results.append(result)
            progress(result)
        }
        let elapsed = started.duration(to: .now).components
        return SoakSummary(results: results,
                           wallMillis: Int(elapsed.seconds) * 1000 + Int(elapsed.attoseconds / 1_000_000_000_000_000))
    }
}
