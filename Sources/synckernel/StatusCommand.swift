import Foundation
import SyncDevice
import SyncKernel

/// `synckernel status`: a store's device, namespaces and siblings, read from its files.
///
/// Invariants: the store is opened read-only and never written (no lease, no migration, no
/// journal change), so the command can run while a device process runs on the store; the JSON is
/// one object whose `namespaces` is byte-identical for two stores holding the same items; a file
/// that is not a store exits 2 (the same cases as `check`), bad usage 64, never a crash.
enum StatusCommand {
    /// The command's help text.
    static let usage = """
        usage: synckernel status --db PATH [--json]
          Shows the store at PATH: its device id, each namespace's rows (synced items), open conflicts
          (keys holding more than one live version) and root (the set-hash root its digest
          advertises), and the siblings the device recorded beside the store (last round, last
          envelope, whether in sync). Reads the files only (read-only SQLite), so it
          can run while `synckernel device` runs on the store.
          --json  print one JSON object: {"device": ID, "namespaces": {NAME: {"rows": N, "conflicts": N,
                  "root": HEX}},
                  "siblings": [{"device": ID, "last_round": MS, "last_seen": MS, "in_sync": BOOL}]}
          exit status: 0 shown, 2 the file is not a store (missing, zero-length, not SQLite, another
          application's database, or unreadable), 64 bad usage
        """

    /// Runs the command and returns its exit status.
    static func run(_ arguments: [String]) -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        let path: String
        let json: Bool
        do throws(UsageError) {
            let options = try OptionParser(arguments, options: ["db"], flags: ["json"])
            guard let db = options.values["db"], !db.isEmpty else { throw UsageError("--db PATH is required") }
            path = db
            json = options.flags.contains("json")
        } catch {
            FileHandle.standardError.write(Data("synckernel status: \(error.message)\n\(usage)\n".utf8))
            return 64
        }
        guard FileManager.default.fileExists(atPath: path) else {
            FileHandle.standardError.write(Data("synckernel status: no file at this path (status never creates a store)\n".utf8))
            return CheckCommand.unopenable
        }
        do throws(SyncKernelError) {
            let status = try DeviceStatus(storeAt: path)
            print(json ? status.json() : status.text())
            return 0
        } catch {
            FileHandle.standardError.write(Data("synckernel status: the file does not open as a store: \(error)\n".utf8))
            return CheckCommand.unopenable
        }
    }
}
