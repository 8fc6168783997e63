import Foundation
import KernelBench

/// `synckernel bench`: the reconcile benchmark (`--rows`), its grid (`--grid`), or, with
/// neither, the earlier side-by-side comparisons (`make bench`).
///
/// Invariant: exit code 0 when every exchange converged, 1 when one did not, 2 when the run
/// failed, 64 on bad usage; numbers go to standard output, progress to standard error.
enum BenchCommand {
    /// The command's usage text.
    static let usage = """
        usage: synckernel bench --rows N --diff D[,D...] [--sides one|both] [--narrow] [--mode spec|fast] [--seed S] [--row-bytes B] [--json]
               synckernel bench --grid [--json] [--csv PATH] [--seed S] [--row-bytes B] [--bound-s SECONDS]
               synckernel bench [--compare-rows R] [--seed S]
               synckernel bench --decode-memory [--decode-memory-mib M] [--decode-memory-shape NAME]
          --rows N --diff D  two replicas on SQLite files load the same N rows of about B bytes (default 500) in
                             one transaction each, make D differences (inserts on either side, a third edits of
                             shared rows), and reconcile to equal roots; prints bytes (detection and rows), frames,
                             round trips, CPU per side, per-write overhead, structure size, peak memory
          --diff D1,D2,...   one run per count, each on copies of one load
          --sides one        every difference on A (default both: inserts and edits split across A and B)
          --narrow           the exchange a peer of the earlier build gets: at most 4,096 symbols, then the trie
          --mode spec        the spec's frames: Merkle digests, bucketize, every row of every mismatching bucket
          --mode fast        the sketch exchange (default): set-hash digests, a sketch sized to the expected
                             difference, rows of the differing keys only, the trie comparison when it cannot decode
          --grid             N in {1e3, 1e5, 1e6} x D in {0, 1, 10, 100, 1000}, both modes; prints a table and writes
                             a CSV (default bench-grid.csv); a load or point estimated above --bound-s (default 600)
                             is skipped with its estimate
          no --rows, no --grid: the spec's frames against the sketch exchange in a 3-device fleet, and the
                             persisted structure's digest against a rescan, over R notebook rows (default 20000)
          --decode-memory    decodes each hostile and legitimate shape (about M MiB, default 16) in a fresh child
                             process; prints input bytes, peak memory added by decoding, their ratio, time, outcome
        build with -c release: `make bench-grid`, `make bench`
        """

    /// Runs the command; returns the exit code.
    static func run(_ arguments: [String]) -> Int32 {
        let options: OptionParser
        do {
            options = try OptionParser(arguments, options: ["rows", "diff", "sides", "mode", "seed", "row-bytes", "csv", "bound-s",
                                                            "compare-rows", "decode-memory-mib", "decode-memory-shape"],
                                       flags: ["json", "grid", "help", "decode-memory", "narrow"])
        } catch {
            return usageError(error.message)
        }
        if options.flags.contains("help") {
            print(usage)
            return 0
        }
        if options.flags.contains("decode-memory") || options.values["decode-memory-shape"] != nil {
            return decodeMemory(options)
        }
        if options.flags.contains("grid") { return grid(options) }
        if options.values["rows"] != nil { return single(options) }
        do {
            return BenchComparisons.run(rows: try options.int("compare-rows", default: 20_000, range: 300...1_000_000),
                                        seed: UInt64(try options.int("seed", default: 1, range: 0...Int.max)))
        } catch {
            return usageError(error.message)
        }
    }

    /// `--rows N --diff D`: one run, printed as a summary or one JSON object; `--diff D1,D2,...`
    /// runs each on copies of one load, one summary or JSON object each.
    private static func single(_ options: OptionParser) -> Int32 {
        var config = BenchConfig()
        var series: [Int] = []
        do throws(UsageError) {
            config.rows = try options.int("rows", default: 10_000, range: 1...10_000_000)
            if let list = options.values["diff"], list.contains(",") {
                for text in list.split(separator: ",") {
                    guard let value = Int(text), (0...1_000_000).contains(value) else { throw UsageError("--diff takes counts in 0...1000000") }
                    series.append(value)
                }
            } else {
                config.differences = try options.int("diff", default: 100, range: 0...1_000_000)
            }
            switch options.values["sides"] ?? "both" {
            case "both": config.oneSided = false
            case "one": config.oneSided = true
            default: throw UsageError("--sides must be one or both")
            }
            config.wide = !options.flags.contains("narrow")
            config.seed = UInt64(try options.int("seed", default: 1, range: 0...Int.max))
            config.rowBytes = try options.int("row-bytes", default: 500, range: 48...1_000_000)
            config.mode = try mode(options)
        } catch {
            return usageError(error.message)
        }
        do {
            guard !series.isEmpty else {
                let report = try KernelBench.run(config)
                print(options.flags.contains("json") ? report.json() : report.text())
                return report.converged ? 0 : 1
            }
            var converged = true
            try KernelBench.runSeries(series.map { count in
                var point = config
                point.differences = count
                return point
            }) { report in
                print(options.flags.contains("json") ? report.json() : report.text())
                converged = converged && report.converged
            }
            return converged ? 0 : 1
        } catch {
            FileHandle.standardError.write(Data("synckernel bench: \(error)\n".utf8))
            return 2
        }
    }

    /// `--grid`: every point, a table (or JSON) on standard output, the CSV written to `--csv`.
    private static func grid(_ options: OptionParser) -> Int32 {
        var grid = BenchGrid()
        let csvPath: String
        do {
            grid.seed = UInt64(try options.int("seed", default: 1, range: 0...Int.max))
            grid.rowBytes = try options.int("row-bytes", default: 500, range: 48...1_000_000)
            grid.boundSeconds = try options.double("bound-s", default: 600, range: 1...86_400)
            csvPath = options.values["csv"] ?? FileManager.default.currentDirectoryPath + "/bench-grid.csv"
        } catch {
            return usageError(error.message)
        }
        do {
            let result = try grid.run { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
            try Data(result.csv().utf8).write(to: URL(fileURLWithPath: csvPath))
            print(options.flags.contains("json") ? result.json() : result.table())
            if !options.flags.contains("json") { print("\nCSV written to \(csvPath)") }
            return result.allConverged ? 0 : 1
        } catch {
            FileHandle.standardError.write(Data("synckernel bench: \(error)\n".utf8))
            return 2
        }
    }

    /// `--decode-memory`: every shape in its own child; with `--decode-memory-shape` alone, the child's half.
    private static func decodeMemory(_ options: OptionParser) -> Int32 {
        let mebibytes: Int
        do {
            mebibytes = try options.int("decode-memory-mib", default: 16, range: 1...1024)
        } catch {
            return usageError(error.message)
        }
        let shape = options.values["decode-memory-shape"]
        if let shape, !options.flags.contains("decode-memory") { return DecodeMemoryBench.child(shape: shape, mebibytes: mebibytes) }
        return DecodeMemoryBench.run(mebibytes: mebibytes, only: shape)
    }

    /// The `--mode` value (default fast).
    private static func mode(_ options: OptionParser) throws(UsageError) -> BenchMode {
        guard let text = options.values["mode"] else { return .fast }
        guard let mode = BenchMode(rawValue: text) else { throw UsageError("--mode must be spec or fast") }
        return mode
    }

    /// Prints a usage mistake and the usage; returns 64.
    private static func usageError(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("synckernel bench: \(message)\n\(usage)\n".utf8))
        return 64
    }
}
