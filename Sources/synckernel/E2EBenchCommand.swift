import Foundation
import KernelBench

/// `synckernel bench-e2e`: what a sync costs end to end, between two `synckernel device`
/// processes over a `nats-server` the command starts, through sealed envelopes, with the
/// in-memory bench's and negentropy's figures for the same point beside it.
///
/// Invariants: every process it starts (the server, the devices) is stopped before it returns,
/// whatever happens; numbers go to standard output (a markdown table, and the CSV file),
/// progress to standard error; exit 0 when every point converged, 1 when one did not, 2 when the
/// run failed, 64 on bad usage. Build with `-c release` (`make bench-e2e`).
enum E2EBenchCommand {
    /// The command's usage text.
    static let usage = """
        usage: synckernel bench-e2e [--rows N,...] [--diff D,...] [--row-bytes B,...] [--sides one|both,...]
                                    [--restart none|a|b,...] [--grid] [--seed S] [--bound-s SECONDS]
                                    [--directory DIR] [--csv PATH] [--negentropy PATH] [--no-in-memory]
                                    [--log-dir DIR]
          Starts nats-server (from the PATH or NATS_SERVER) on free loopback ports (clients, and HTTP monitoring
          with -m), preloads two stores of N notebook rows of B encoded bytes through `synckernel device`
          processes (rows created on both devices, edits, deletes, conflicts; see E2EPreload), then for each
          point: copies of both stores run as devices a and b, meet (equal roots), D differences are written (a
          third edits of preloaded rows, the rest inserts; all on a, or half on each side), while both run
          (--restart none) or while a or b is away (it stops, writes its share offline, restarts), and the
          window runs until both report equal roots. Prints per point: bytes and messages published into the
          server (in_bytes, in_msgs of /varz), bytes / changed row bytes (D x B), wall time, each device's CPU
          (/proc/PID/stat), envelopes each way and round trips, beside `synckernel bench`'s ratio for the same N,
          D, B and seed and negentropy's (the reference implementation on the same item sets, plus a fetch of
          the D rows: D x (B + 16 + 40) bytes).
          --rows, --diff, --row-bytes, --sides, --restart   one value or a comma-separated list each (defaults:
                             100000, 100, 500, one, none); points with D > N/10 are left out
          --grid             N in {1e5, 1e6} x B in {80, 500} x D in {1, 10, 100, 1000, 1e4, 1e5} x sides {one, both}
                             x restart {none, a, b} (each list option given narrows it)
          --bound-s          seconds a sync may take before its point counts as not converged (default 600)
          --directory        where the stores go (default /dev/shm when it exists, else the temporary folder)
          --csv              the CSV written (default bench-e2e.csv here)
          --negentropy       the driver (default NEGENTROPY_DRIVER, else .build/negentropy/negentropy-driver;
                             `make negentropy-driver` builds it); without one the column shows -
          --no-in-memory     leave out the in-memory bench's figure
          --log-dir          keep each device's event lines (JSON) of each point's window there, one file per device
                             and point (POINT-a.jsonl, POINT-b.jsonl; POINT is the point's label
                             without its dashes, spaces as _)
        """

    /// The full grid's row counts.
    private static let gridRows = [100_000, 1_000_000]
    /// The full grid's row sizes.
    private static let gridRowBytes = [80, 500]
    /// The full grid's differences (each point keeps those at most N/10).
    private static let gridDifferences = [1, 10, 100, 1_000, 10_000, 100_000]

    /// The parsed options.
    private struct Options {
        var rows = [100_000]
        var rowBytes = [500]
        var differences = [100]
        var sides: [E2EPlan.Sides] = [.one]
        var restarts: [E2EPoint.Restart] = [.none]
        var seed: UInt64 = 1
        var boundSeconds = 600.0
        var directory = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : FileManager.default.temporaryDirectory.path
        var csv = FileManager.default.currentDirectoryPath + "/bench-e2e.csv"
        var negentropy: String?
        var inMemory = true
        var logDirectory: String?
    }

    /// Runs the command; returns the exit code.
    static func run(_ arguments: [String]) async -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        let options: Options
        do throws(UsageError) {
            options = try parse(arguments)
        } catch {
            FileHandle.standardError.write(Data("synckernel bench-e2e: \(error.message)\n\(usage)\n".utf8))
            return 64
        }
        let relay: E2ERelay
        do {
            relay = try await E2ERelay.start()
        } catch {
            FileHandle.standardError.write(Data("synckernel bench-e2e: \(error)\n".utf8))
            return 2
        }
        var results: [E2EResult] = []
        var failure: Error?
        do {
            try await measure(options, relay: relay) { result in
                results.append(result)
                progress(result.tableRow)
                try? Data((([E2EResult.csvHeader] + results.map(\.csvLine)).joined(separator: "\n") + "\n").utf8)
                    .write(to: URL(fileURLWithPath: options.csv))
            }
        } catch {
            failure = error
        }
        await relay.stop()
        print(E2EResult.tableHeader)
        for result in results { print(result.tableRow) }
        print("\nCSV written to \(options.csv)")
        if let failure {
            FileHandle.standardError.write(Data("synckernel bench-e2e: \(failure)\n".utf8))
            return 2
        }
        return results.allSatisfy(\.converged) ? 0 : 1
    }

    /// Every point of `options`, preloading once per (N, B); `record` gets each result.
    private static func measure(_ options: Options, relay: E2ERelay, record: (E2EResult) -> Void) async throws {
        let root = options.directory + "/synckernel-e2e-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let negentropy = driver(options).map(NegentropyComparison.init(driver:))
        if negentropy == nil { progress("no negentropy driver found: run `make negentropy-driver`; its column shows -") }
        for rows in options.rows {
            for rowBytes in options.rowBytes {
                let differences = options.differences.filter { $0 <= rows / 10 }
                guard !differences.isEmpty else { continue }
                progress("preloading two stores of \(rows) rows of \(rowBytes) bytes in \(root)")
                let preload = try await E2EPreload.make(rows: rows, rowBytes: rowBytes, seed: options.seed,
                                                        directory: root + "/preload-\(rows)-\(rowBytes)", relay: relay,
                                                        progress: progress)
                progress(String(format: "preloaded in %.1f s (%d notebook items)", preload.seconds, preload.items.count))
                defer { try? FileManager.default.removeItem(atPath: preload.directory) }
                for diff in differences {
                    let inMemory = options.inMemory ? inMemoryFigure(rows: rows, differences: diff, rowBytes: rowBytes, seed: options.seed)
                                                    : nil
                    for sides in options.sides {
                        for restart in options.restarts {
                            let point = E2EPoint(rows: rows, rowBytes: rowBytes, differences: diff, sides: sides, restart: restart)
                            let run = E2ERun(point: point, preload: preload, relay: relay, directory: root + "/point",
                                             boundSeconds: options.boundSeconds, seed: options.seed, negentropy: negentropy,
                                             inMemory: inMemory, logDirectory: options.logDirectory)
                            record(try await run.measure(progress: progress))
                        }
                    }
                }
            }
        }
    }

    /// `synckernel bench --rows N --diff D --row-bytes B --seed S` in this process: its bytes_total /
    /// row_bytes and round trips (nil when it failed).
    private static func inMemoryFigure(rows: Int, differences: Int, rowBytes: Int, seed: UInt64) -> (ratio: Double?, roundTrips: Int)? {
        progress("in-memory bench: --rows \(rows) --diff \(differences) --row-bytes \(rowBytes) --seed \(seed)")
        guard let report = try? KernelBench.run(BenchConfig(rows: rows, differences: differences, mode: .fast, seed: seed,
                                                            rowBytes: rowBytes)) else { return nil }
        return (report.converged ? report.overhead : nil, report.roundTrips)
    }

    /// The negentropy driver to use, if one exists.
    private static func driver(_ options: Options) -> String? {
        let candidates = [options.negentropy, ProcessInfo.processInfo.environment["NEGENTROPY_DRIVER"],
                          FileManager.default.currentDirectoryPath + "/.build/negentropy/negentropy-driver"]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Parses the command line.
    private static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        let parsed = try OptionParser(arguments, options: ["rows", "diff", "row-bytes", "sides", "restart", "seed", "bound-s", "directory",
                                                           "csv", "negentropy", "log-dir"],
                                      flags: ["grid", "no-in-memory"])
        var options = Options()
        if parsed.flags.contains("grid") {
            options.rows = gridRows
            options.rowBytes = gridRowBytes
            options.differences = gridDifferences
            options.sides = E2EPlan.Sides.allCases
            options.restarts = E2EPoint.Restart.allCases
        }
        if let text = parsed.values["rows"] { options.rows = try integers(text, "rows", 1_000...1_000_000) }
        if let text = parsed.values["diff"] { options.differences = try integers(text, "diff", 1...100_000) }
        if let text = parsed.values["row-bytes"] {
            options.rowBytes = try integers(text, "row-bytes", BenchRowsWriter.minRowBytes...BenchRowsWriter.maxRowBytes)
        }
        if let text = parsed.values["sides"] { options.sides = try words(text, "sides") }
        if let text = parsed.values["restart"] { options.restarts = try words(text, "restart") }
        options.seed = UInt64(try parsed.int("seed", default: 1, range: 0...Int.max))
        options.boundSeconds = try parsed.double("bound-s", default: 600, range: 1...86_400)
        if let directory = parsed.values["directory"] { options.directory = directory }
        if let csv = parsed.values["csv"] { options.csv = csv }
        options.negentropy = parsed.values["negentropy"]
        options.inMemory = !parsed.flags.contains("no-in-memory")
        options.logDirectory = parsed.values["log-dir"]
        guard options.rows.contains(where: { rows in options.differences.contains { $0 <= rows / 10 } }) else {
            throw UsageError("no point has D <= N/10")
        }
        return options
    }

    /// A comma-separated list of integers in `range`.
    private static func integers(_ text: String, _ name: String, _ range: ClosedRange<Int>) throws(UsageError) -> [Int] {
        let values = text.split(separator: ",").compactMap { Int($0) }
        guard !values.isEmpty, values.count == text.split(separator: ",").count, values.allSatisfy(range.contains) else {
            throw UsageError("--\(name) takes integers in \(range.lowerBound)...\(range.upperBound), separated by commas")
        }
        return values
    }

    /// A comma-separated list of `Value`'s raw values.
    private static func words<Value: RawRepresentable & CaseIterable>(_ text: String,
                                                                     _ name: String) throws(UsageError) -> [Value] where Value.RawValue == String {
        let values = text.split(separator: ",").compactMap { Value(rawValue: String($0)) }
        guard !values.isEmpty, values.count == text.split(separator: ",").count else {
            throw UsageError("--\(name) takes " + Value.allCases.map(\.rawValue).joined(separator: ", ") + ", separated by commas")
        }
        return values
    }

    /// Writes a progress line to standard error.
    private static func progress(_ text: String) {
        FileHandle.standardError.write(Data("bench-e2e: \(text)\n".utf8))
    }
}
