import FleetSimulation
import Foundation
import SyncKernel

/// `synckernel check`: reports a store's integrity and, with `--repair`, repairs what it can.
///
/// Invariants: without `--repair` nothing the check finds is changed (opening the store still
/// upgrades one of an earlier build, as any open does); a file that does not open as a store,
/// or that SQLite cannot read, is reported with exit status 2, never a crash; the exit status is
/// 0 only when the final check finds no damage.
enum CheckCommand {
    /// The exit status of a healthy store (after `--repair`: healthy once repaired).
    static let healthy: Int32 = 0
    /// The exit status when damage is found (and, with `--repair`, remains).
    static let damaged: Int32 = 1
    /// The exit status when the file does not open as a store.
    static let unopenable: Int32 = 2
    /// The exit status of `--repair` on a store another process has open for writing.
    static let inUse: Int32 = 3

    /// The command's help text.
    static let usage = """
        usage: synckernel check --db PATH [--repair] [--json]
          Checks a store: SQLite's own integrity check, each namespace's persisted structure against
          a rescan of its stored leaves, every stored row (it must decode to its key and to its stored
          leaf, and its vectors must decode), and lists the quarantined rows. The store is opened with
          the standard namespaces it holds; row tables of any other namespace are listed, not checked.
          --repair  quarantine every damaged row, rebuild every structure that differs, check again
          --json    print one JSON object
          Beside a device running on the store, the check reads it through a read-only connection
          as the device left it (one consistent state; nothing written); --repair writes, so it is
          refused then (exit 3) until the device stops.
          exit status: 0 healthy, 1 damage found (after --repair: damage left), 2 the file does not
          open as a store (missing, zero-length, not SQLite, another application's database, or a
          file SQLite cannot read), 3 --repair on a store another process has open for writing,
          64 bad usage
        """

    /// Runs the command and returns its exit status.
    static func run(_ arguments: [String]) -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return healthy
        }
        let path: String
        let repair: Bool
        let json: Bool
        do throws(UsageError) {
            let options = try OptionParser(arguments, options: ["db"], flags: ["repair", "json"])
            guard let db = options.values["db"] else { throw UsageError("--db PATH is required") }
            path = db
            repair = options.flags.contains("repair")
            json = options.flags.contains("json")
        } catch {
            FileHandle.standardError.write(Data("synckernel check: \(error.message)\n\(usage)\n".utf8))
            return 64
        }
        var output = CheckOutput(path: path)
        let status = check(path, repair: repair, into: &output)
        output.status = switch status {
        case healthy: "healthy"
        case damaged: "damaged"
        case inUse: "in_use"
        default: "unopenable"
        }
        print(json ? output.json() : output.text())
        return status
    }

    /// Opens and checks the store at `path`, filling `output`; returns the exit status.
    private static func check(_ path: String, repair: Bool, into output: inout CheckOutput) -> Int32 {
        guard FileManager.default.fileExists(atPath: path) else {
            output.error = "no file at this path (check never creates a store)"
            return unopenable
        }
        let store: KernelStore
        do {
            let stored = try KernelStore.namespaceNames(storedAt: path)
            var standard: [any SyncNamespace.Type] = []
            for namespace in FleetSimulation.standardNamespaces where stored.contains(namespace.name) {
                standard.append(namespace)
                output.namespaces.append(namespace.name)
            }
            output.unknownNamespaces = stored.filter { !output.namespaces.contains($0) }
            do throws(SyncKernelError) {
                store = try KernelStore(path: path, namespaces: NamespaceSet(standard))
            } catch where error.code == .storeInUse && !repair {
                // A device runs on the store: check it as that device left it, through a read-only connection.
                output.report = try KernelStore.checkIntegrity(storedAt: path, namespaces: NamespaceSet(standard))
                return output.report?.isHealthy == true ? healthy : damaged
            }
        } catch where error.code == .storeInUse {
            output.error = "the store is open for writing in another process (\(error.detail)): a repair waits until it stops (\(error.code))"
            return inUse
        } catch {
            output.error = "the file does not open as a store: \(error)"
            return unopenable
        }
        defer { store.close() }
        output.quarantinedAtOpen = store.quarantinedAtOpen.count
        do {
            output.report = try store.checkIntegrity()
            if repair, output.report?.isHealthy == false {
                output.repair = try store.repair()
                output.report = try store.checkIntegrity()
            }
        } catch {
            output.error = "the check could not read the store: \(error)"
            return damaged
        }
        return output.report?.isHealthy == true ? healthy : damaged
    }
}
