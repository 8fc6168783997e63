import Foundation
import KernelBench
import SyncKernel

/// `synckernel bench-diff`: the time `synckernel diff` takes on two equal stores of N rows and
/// after D rows of one are edited, beside the comparison of every key it replaced.
///
/// Invariants: the stores are real (`DiffStores`: one loaded as the benchmark loads a replica,
/// its file copied, the copy edited through `KernelStore`); each timed diff opens both files
/// read-only, compares them as `synckernel diff` does and renders its text report; the run
/// checks what it times (equal stores report equal, the edited ones exactly the D edited keys,
/// the full comparison the same keys) and exits 1 when a check fails, 2 when the run fails, 64
/// on bad usage. Numbers go to standard output, progress to standard error.
enum BenchDiffCommand {
    /// The command's usage text.
    static let usage = """
        usage: synckernel bench-diff --rows N [--diff D] [--full-scan] [--seed S] [--row-bytes B] [--directory DIR] [--json]
          Loads N rows of about B bytes (default 500) into store A in one transaction, copies its file to B,
          times `synckernel diff` on the equal pair, edits D rows of B (default 100) and times it again.
          --full-scan      also times the comparison of every key (the diff before the persisted structure was used)
          --directory DIR  keeps the two stores in DIR, created if missing (it must not hold a.sqlite or
                           b.sqlite); default: a temporary folder, removed at the end
        build with -c release
        """

    /// One timed comparison.
    private struct Timing {
        let seconds: Double
        let keys: [[UInt8]]
        let route: String
    }

    /// Runs the command; returns the exit code.
    static func run(_ arguments: [String]) -> Int32 {
        let options: OptionParser
        let (rows, edits, seed, rowBytes): (Int, Int, Int, Int)
        do throws(UsageError) {
            options = try OptionParser(arguments, options: ["rows", "diff", "seed", "row-bytes", "directory"],
                                       flags: ["json", "full-scan", "help"])
            if options.flags.contains("help") {
                print(usage)
                return 0
            }
            guard options.values["rows"] != nil else { throw UsageError("--rows N is required") }
            rows = try options.int("rows", default: 0, range: 1...10_000_000)
            edits = try options.int("diff", default: 100, range: 0...rows)
            seed = try options.int("seed", default: 1, range: 0...Int.max)
            rowBytes = try options.int("row-bytes", default: 500, range: 48...1_000_000)
        } catch {
            FileHandle.standardError.write(Data("synckernel bench-diff: \(error.message)\n\(usage)\n".utf8))
            return 64
        }
        let kept = options.values["directory"]
        do {
            let directory = kept ?? NSTemporaryDirectory() + "synckernel-bench-diff-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { if kept == nil { try? FileManager.default.removeItem(atPath: directory) } }
            progress("loading \(rows) rows into \(directory)/a.sqlite")
            let stores = try DiffStores.load(rows: rows, seed: UInt64(seed), rowBytes: rowBytes, into: directory)
            let full = options.flags.contains("full-scan")
            let equal = try timed(stores, structure: true)
            let equalFull = full ? try timed(stores, structure: false) : nil
            progress("editing \(edits) rows of b.sqlite")
            let edited = try stores.edit(edits).sorted(by: [UInt8].keyPrecedes)
            let differ = try timed(stores, structure: true)
            let differFull = full ? try timed(stores, structure: false) : nil
            let correct = equal.keys.isEmpty && differ.keys == edited && (equalFull?.keys.isEmpty ?? true)
                && (differFull.map { $0.keys == edited } ?? true)
            let figures: [String: Any] = [
                "rows": rows, "edited": edits, "load_s": stores.loadSeconds, "correct": correct,
                "equal_s": equal.seconds, "equal_route": equal.route, "differ_s": differ.seconds, "differ_route": differ.route,
                "differ_keys": differ.keys.count, "full_scan_equal_s": equalFull?.seconds ?? NSNull(),
                "full_scan_differ_s": differFull?.seconds ?? NSNull(),
            ]
            print(options.flags.contains("json") ? JSONText.of(figures) : text(figures))
            return correct ? 0 : 1
        } catch {
            FileHandle.standardError.write(Data("synckernel bench-diff: \(error)\n".utf8))
            return 2
        }
    }

    /// Opens both stores read-only and compares them, through the structures as `diff` does or
    /// by every key, rendering the text report; the wall time and the differing keys.
    private static func timed(_ stores: DiffStores, structure: Bool) throws -> Timing {
        let started = ContinuousClock.now
        let a = try StoreReader(path: stores.pathA)
        let b = try StoreReader(path: stores.pathB)
        defer {
            a.close()
            b.close()
        }
        let name = BenchNamespace.name
        let keys: [KeyDifference]
        let route: String
        if structure {
            let diff = try StoreDiff(a, b)
            _ = DiffCommand.text(diff, [stores.pathA, stores.pathB])
            keys = diff.namespaces.flatMap(\.keys)
            route = diff.routes[name].map { "\($0)" } ?? "none"
        } else {
            keys = KeyDifference.listing(try a.keys(namespace: name), try b.keys(namespace: name))
            route = "everyKey"
        }
        return Timing(seconds: (ContinuousClock.now - started).seconds, keys: keys.map(\.key), route: route)
    }

    private static func text(_ figures: [String: Any]) -> String {
        let order = ["rows", "edited", "load_s", "equal_s", "equal_route", "full_scan_equal_s", "differ_s", "differ_route",
                     "differ_keys", "full_scan_differ_s", "correct"]
        return order.map { "\($0): \(figures[$0].map { $0 is NSNull ? "-" : "\($0)" } ?? "-")" }.joined(separator: "\n")
    }

    private static func progress(_ line: String) {
        FileHandle.standardError.write(Data("bench-diff: \(line)\n".utf8))
    }
}
