import Foundation
import SyncKernel

/// `synckernel diff`: the namespaces and keys where two stores differ, with both sides' leaves.
///
/// Invariants: both stores are read through read-only connections and never written (no lease,
/// no migration), so it can run while devices run on them; keys and hashes print in hexadecimal
/// and rows in escaped diagnostic notation; the exit status is 0 when the stores hold the same
/// items in every namespace, 1 when they differ, 2 when a file is not a store, 64 on bad usage
/// (`--db` given other than twice), never a crash. A namespace both stores hold is compared
/// through their persisted structures (`StructureComparison`), which lists exactly the keys a
/// comparison of every key lists.
enum DiffCommand {
    /// The command's help text.
    static let usage = """
        usage: synckernel diff --db A --db B [--json]
          Lists the namespaces and keys where the stores A and B differ, as their digests count it: a
          key differs when its leaf differs, when one side lacks it, or when one side keeps concurrent
          versions of it the other does not hold (a conflict). For each key it shows both sides' leaves,
          live versions and rows. A namespace only one store holds is listed as such. Reads the files
          only (read-only SQLite, nothing written), and of a namespace both hold only the rows under the
          keys where their persisted structures differ (every row when a structure cannot be used).
          --json  print one JSON object
          exit status: 0 equal, 1 they differ, 2 a file is not a store, 64 bad usage
        """

    /// Runs the command and returns its exit status.
    static func run(_ arguments: [String]) -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        let paths: [String]
        let json: Bool
        do throws(UsageError) {
            let options = try OptionParser(arguments, options: ["db"], flags: ["json"])
            guard let given = options.lists["db"], given.count == 2, given.allSatisfy({ !$0.isEmpty }) else {
                throw UsageError("--db PATH is required exactly twice")
            }
            (paths, json) = (given, options.flags.contains("json"))
        } catch {
            FileHandle.standardError.write(Data("synckernel diff: \(error.message)\n\(usage)\n".utf8))
            return 64
        }
        var readers: [StoreReader] = []
        defer { readers.forEach { $0.close() } }
        for path in paths {
            guard FileManager.default.fileExists(atPath: path) else {
                FileHandle.standardError.write(Data("synckernel diff: no file at \(path) (diff never creates a store)\n".utf8))
                return CheckCommand.unopenable
            }
            do {
                readers.append(try StoreReader(path: path))
            } catch {
                FileHandle.standardError.write(Data("synckernel diff: \(path) does not open as a store: \(error)\n".utf8))
                return CheckCommand.unopenable
            }
        }
        let diff: StoreDiff
        do {
            diff = try StoreDiff(readers[0], readers[1])
        } catch {
            FileHandle.standardError.write(Data("synckernel diff: a store could not be read: \(error)\n".utf8))
            return CheckCommand.unopenable
        }
        print(json ? self.json(diff, paths) : text(diff, paths))
        return diff.isEqual ? 0 : 1
    }

    /// The text report of `diff` between the stores at `paths`.
    static func text(_ diff: StoreDiff, _ paths: [String]) -> String {
        var lines = ["A: \(paths[0])", "B: \(paths[1])"]
        for namespace in diff.namespaces {
            guard namespace.inA, namespace.inB else {
                lines.append("namespace \(namespace.name): only in \(namespace.inA ? "A" : "B") (\(namespace.keys.count) keys)")
                continue
            }
            lines.append("namespace \(namespace.name): \(namespace.keys.count) keys differ")
            for key in namespace.keys {
                lines.append("  key \(Hex.encode(key.key))")
                for (side, stored) in [("A", key.a), ("B", key.b)] {
                    guard let stored else {
                        lines.append("    \(side): not held")
                        continue
                    }
                    lines.append("    \(side):")
                    lines += StoredKeyView(stored: stored).lines(indent: "      ")
                }
            }
        }
        lines.append(diff.isEqual ? "result: equal" : "result: differ in \(diff.namespaces.count) namespaces")
        return lines.joined(separator: "\n")
    }

    /// The JSON report of `diff` between the stores at `paths`.
    static func json(_ diff: StoreDiff, _ paths: [String]) -> String {
        var namespaces: [String: Any] = [:]
        for namespace in diff.namespaces {
            namespaces[namespace.name] = [
                "in_a": namespace.inA, "in_b": namespace.inB,
                "keys": namespace.keys.map { key -> [String: Any] in
                    ["key": Hex.encode(key.key), "a": key.a.map { StoredKeyView(stored: $0).object() } ?? NSNull(),
                     "b": key.b.map { StoredKeyView(stored: $0).object() } ?? NSNull()]
                },
            ] as [String: Any]
        }
        return JSONText.of(["a": paths[0], "b": paths[1], "equal": diff.isEqual, "namespaces": namespaces])
    }
}
