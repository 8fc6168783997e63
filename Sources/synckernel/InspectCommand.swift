import Foundation
import SyncKernel

/// `synckernel inspect`: what a store holds for one key of one namespace.
///
/// Invariants: the store is read through a read-only connection and never written (no lease, no
/// migration), so it can run while a device runs on the store; the key is given and printed in
/// hexadecimal; the exit status is 0 when the key is held, 1 when it is not, 2 when the file is
/// not a store (the cases `check` reports the same way), 64 on bad usage, never a crash.
enum InspectCommand {
    /// The command's help text.
    static let usage = """
        usage: synckernel inspect --db PATH --namespace NAME --key HEX [--json]
          Shows what the store at PATH holds for one key: the visible row in CBOR diagnostic notation,
          its leaf (and its structure item when the key is in conflict), its RowVersion (vector, the
          vector of the write its content came from, the RowClock stamp last accounted for, the device
          that wrote it), every live version kept beside it (vector, writer, leaf, row) and every delete
          (tombstone) kept for it. Reads the file only (read-only SQLite, nothing written).
          --json  print one JSON object
          exit status: 0 shown, 1 the namespace holds nothing for the key (or the store has no such
          namespace), 2 the file is not a store, 64 bad usage
        """

    /// Runs the command and returns its exit status.
    static func run(_ arguments: [String]) -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        let path: String
        let namespace: String
        let key: [UInt8]
        let json: Bool
        do throws(UsageError) {
            let options = try OptionParser(arguments, options: ["db", "namespace", "key"], flags: ["json"])
            guard let db = options.values["db"], !db.isEmpty else { throw UsageError("--db PATH is required") }
            guard let name = options.values["namespace"], !name.isEmpty else { throw UsageError("--namespace NAME is required") }
            guard let hex = options.values["key"] else { throw UsageError("--key HEX is required") }
            guard let bytes = Hex.decode(hex) else { throw UsageError("--key must be hexadecimal (an even number of digits)") }
            (path, namespace, key, json) = (db, name, bytes, options.flags.contains("json"))
        } catch {
            FileHandle.standardError.write(Data("synckernel inspect: \(error.message)\n\(usage)\n".utf8))
            return 64
        }
        guard FileManager.default.fileExists(atPath: path) else {
            FileHandle.standardError.write(Data("synckernel inspect: no file at this path (inspect never creates a store)\n".utf8))
            return CheckCommand.unopenable
        }
        let reader: StoreReader
        do {
            reader = try StoreReader(path: path)
        } catch {
            FileHandle.standardError.write(Data("synckernel inspect: the file does not open as a store: \(error)\n".utf8))
            return CheckCommand.unopenable
        }
        defer { reader.close() }
        guard reader.namespaces.contains(namespace) else {
            FileHandle.standardError.write(Data("synckernel inspect: the store holds no namespace \(namespace)\n".utf8))
            return 1
        }
        let stored: StoredKey?
        do {
            stored = try reader.key(key, namespace: namespace)
        } catch {
            FileHandle.standardError.write(Data("synckernel inspect: the store could not be read: \(error)\n".utf8))
            return CheckCommand.unopenable
        }
        let view = stored.map(StoredKeyView.init)
        if json {
            var object: [String: Any] = ["path": path, "namespace": namespace, "key": Hex.encode(key), "held": view != nil]
            if let view { object.merge(view.object()) { _, new in new } }
            print(JSONText.of(object))
        } else {
            var lines = ["store: \(path)", "namespace: \(namespace)", "key: \(Hex.encode(key))"]
            lines += view?.lines() ?? ["not held: no row, kept version or tombstone"]
            print(lines.joined(separator: "\n"))
        }
        return view == nil ? 1 : 0
    }
}
