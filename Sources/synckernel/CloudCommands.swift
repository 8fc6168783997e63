import CloudAnchor
import Foundation
import SyncKernel
import Synchronization

/// The `backup` and `restore` subcommands: a local directory backed up to, or restored from, a
/// folder (`folder:PATH`) or a WebDAV server (`webdav://[USER:PASSWORD@]HOST[:PORT]/PATH`, or
/// `webdavs://` for HTTPS; credentials may also come from CLOUDANCHOR_WEBDAV_USER and
/// CLOUDANCHOR_WEBDAV_PASSWORD).
///
/// Invariant: the exit code says which guard or failure stopped a run (see `ExitCode`); nothing
/// but progress goes to standard error, and a usage error prints the usage.
enum CloudCommands {
    /// The process exit codes of `backup` and `restore`.
    enum ExitCode: Int32 {
        /// The run finished.
        case success = 0
        /// A cloud or local failure (the CloudError code is printed).
        case cloudError = 1
        /// Bad arguments.
        case usage = 2
        /// The availability gate: no account or consent missing.
        case unavailable = 3
        /// Backup: the empty guard (the cloud holds a backup this directory never synced: restore first).
        case restorePending = 4
        /// Backup: the shrink guard (pass --allow-shrink to delete that much).
        case shrinkSuspected = 5
        /// Backup: a write hold is set in the state file.
        case writeHeld = 6
        /// Restore: some files are still pending; run again with --resume.
        case partial = 7
        /// Restore: no backup (or its marker is not ready yet).
        case nothingToRestore = 8
        /// Restore --resume: the cloud holds another backup than the one the restore started from.
        case sourceChanged = 9
    }

    static let usage = """
        usage: synckernel backup --from DIR --to LOCATION [--state FILE] [--allow-shrink]
               synckernel restore --from LOCATION --to DIR [--state FILE] [--resume]
        LOCATION: folder:PATH | webdav://[USER:PASSWORD@]HOST[:PORT]/PATH | webdavs://...
        exit codes: 0 done, 1 cloud error, 2 usage, 3 cloud unavailable, 4 restore pending (empty guard),
                    5 shrink suspected (shrink guard), 6 write held, 7 restore partial, 8 nothing to restore,
                    9 backup changed since the restore started
        """

    /// Backs the directory `--from` up to `--to`; returns the exit code.
    static func backup(_ arguments: [String]) async -> Int32 {
        guard let options = Options(arguments, values: ["--from", "--to", "--state"], flags: ["--allow-shrink"]),
              let from = options.values["--from"], let to = options.values["--to"],
              let storage = storage(to, creatingFolder: true) else { return usageError() }
        let source = URL(fileURLWithPath: from)
        do {
            var snapshot = try DirectorySnapshot.scan(source)
            snapshot.allowShrink = options.flags.contains("--allow-shrink")
            let state = try StateStore(path: options.values["--state"]
                                       ?? source.appendingPathComponent(".cloudanchor-state.sqlite").path)
            let engine = SyncEngine(storage: storage, state: state, log: { Progress.note($0) })
            let progress = Progress(label: "backup")
            let outcome = try await engine.sync(snapshot) { progress.show($0, $1) }
            progress.finish()
            switch outcome {
            case .synced(let report):
                print("backup: \(report.uploaded.count) uploaded, \(report.deleted.count) deleted, "
                      + "\(report.failedDeletes.count) deletes to retry")
                return ExitCode.success.rawValue
            case .unavailable(let reason):
                return stopped(by: reason)
            }
        } catch {
            return failed("backup", error)
        }
    }

    /// Restores `--from` into the directory `--to`, or continues the recorded restore with `--resume`.
    static func restore(_ arguments: [String]) async -> Int32 {
        guard let options = Options(arguments, values: ["--from", "--to", "--state"], flags: ["--resume"]),
              let from = options.values["--from"], let to = options.values["--to"],
              let storage = storage(from, creatingFolder: false) else { return usageError() }
        let target = URL(fileURLWithPath: to)
        do {
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            let state = try StateStore(path: options.values["--state"]
                                       ?? target.appendingPathComponent(".cloudanchor-restore.sqlite").path)
            let found: FoundBackup
            switch await SyncEngine(storage: storage, state: state).probe() {
            case .found(let backup):
                found = backup
            case .none, .notReady:
                print("restore: no complete backup at that location")
                return ExitCode.nothingToRestore.rawValue
            case .unavailable(let reason):
                return stopped(by: reason)
            case .failed(let error):
                return failed("restore", error)
            }
            let restorer = RestoreEngine(storage: storage, state: state, placement: ManifestCheck(marker: found.marker))
            let progress = Progress(label: "restore")
            let report: @Sendable (RestoreProgress) -> Void = { progress.show($0.filesDone, $0.filesTotal) }
            let outcome: RestoreOutcome
            if options.flags.contains("--resume") {
                outcome = try await restorer.resume(onProgress: report)
            } else {
                let files = found.files.map {
                    RestoreFile(remotePath: $0.path, localURL: target.appendingPathComponent($0.path), required: true,
                                size: $0.size)
                }
                outcome = try await restorer.start(RestorePlan(source: found.source, files: files), onProgress: report)
            }
            progress.finish()
            return finished(outcome)
        } catch {
            return failed("restore", error)
        }
    }

    private static func finished(_ outcome: RestoreOutcome) -> Int32 {
        switch outcome {
        case .completed:
            print("restore: completed")
            return ExitCode.success.rawValue
        case .partial(let pending):
            print("restore: \(pending) files pending; run again with --resume")
            return ExitCode.partial.rawValue
        case .failed(.cloud(let error)):
            return failed("restore", error)
        case .failed(.sourceChanged):
            print("restore: the backup changed since this restore started; start a new restore")
            return ExitCode.sourceChanged.rawValue
        case .failed(.sourceUnavailable), .failed(.notReady), .failed(.noPlan):
            print("restore: nothing to resume from")
            return ExitCode.nothingToRestore.rawValue
        case .failed(.notAvailable), .failed(.needsConsent):
            print("restore: the cloud is not available")
            return ExitCode.unavailable.rawValue
        case .failed(.placementRejected):
            print("restore failed: a restored file does not match the backup's manifest")
            return ExitCode.cloudError.rawValue
        }
    }

    private static func stopped(by reason: UnavailableReason) -> Int32 {
        switch reason {
        case .noAccount, .needsConsent:
            print("stopped: the cloud is not available")
            return ExitCode.unavailable.rawValue
        case .restorePending:
            print("stopped: the cloud holds a backup this directory never synced; restore it first (empty guard)")
            return ExitCode.restorePending.rawValue
        case .shrinkSuspected(let deletes, let known):
            print("stopped: the run would delete \(deletes) of \(known) files; pass --allow-shrink (shrink guard)")
            return ExitCode.shrinkSuspected.rawValue
        case .writeHeld:
            print("stopped: a write hold is set")
            return ExitCode.writeHeld.rawValue
        }
    }

    private static func failed(_ command: String, _ error: any Error) -> Int32 {
        print("\(command) failed: \((error as? CloudError)?.description ?? "unexpected error")")
        return ExitCode.cloudError.rawValue
    }

    private static func usageError() -> Int32 {
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        return ExitCode.usage.rawValue
    }

    /// The storage a location names, or `nil` when it names none.
    private static func storage(_ location: String, creatingFolder: Bool) -> (any CloudStorage)? {
        if location.hasPrefix("folder:") {
            let path = String(location.dropFirst("folder:".count))
            guard !path.isEmpty else { return nil }
            let root = URL(fileURLWithPath: path)
            if creatingFolder { try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true) }
            return FolderStorage(root: root)
        }
        guard var components = URLComponents(string: location), components.host?.isEmpty == false,
              let scheme = ["webdav": "http", "webdavs": "https"][components.scheme ?? ""] else { return nil }
        let environment = ProcessInfo.processInfo.environment
        let user = components.user ?? environment["CLOUDANCHOR_WEBDAV_USER"]
        let password = components.password ?? environment["CLOUDANCHOR_WEBDAV_PASSWORD"]
        components.scheme = scheme
        components.user = nil
        components.password = nil
        guard let url = components.url else { return nil }
        let credentials = user.map { WebDAVStorage.Credentials(user: $0, password: password ?? "") }
        return WebDAVStorage(baseURL: url, credentials: credentials)
    }
}

/// Places restored files only when their content matches the backup's manifest, and marks every
/// placed SQLite database restored (`KernelStore.markRestored(storeAt:)`), so a SyncKernel store
/// among them takes a fresh device epoch before its first write instead of counting on from the
/// backup's counters.
private struct ManifestCheck: RestorePlacement {
    /// SHA-256 by path; `nil` when the marker is not a manifest (nothing to check against).
    let hashes: [String: String]?

    init(marker: Data) {
        hashes = DirectorySnapshot.manifest(marker).map { manifest in
            Dictionary(manifest.map { ($0.path, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        }
    }

    func place(_ group: RestoreGroup) async -> PlacementDecision {
        if let hashes {
            let intact = group.files.allSatisfy { file in
                hashes[file.remotePath].map { (try? ContentHash.sha256(fileAt: file.localURL)) == $0 } ?? false
            }
            guard intact else { return .rejected }
        }
        for store in group.files.compactMap({ Self.restoredStore($0.localURL) }) {
            do {
                try KernelStore.markRestored(storeAt: store.path)
            } catch {
                return .rejected
            }
        }
        return .placed
    }

    /// The SQLite database a placed file restores: the file itself, or for a lease file
    /// (`<store>-lease`, backed up beside its store) the store it belongs to, which is marked
    /// again so the backup's lease never replaces the mark, whichever lands last.
    private static func restoredStore(_ url: URL) -> URL? {
        if isSQLiteDatabase(url) { return url }
        guard url.lastPathComponent.hasSuffix("-lease") else { return nil }
        let store = url.deletingLastPathComponent().appendingPathComponent(String(url.lastPathComponent.dropLast("-lease".count)))
        return isSQLiteDatabase(store) ? store : nil
    }

    /// Whether the file begins with SQLite's header ("SQLite format 3" and a zero byte).
    private static func isSQLiteDatabase(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        return header == Data("SQLite format 3".utf8) + [0]
    }
}

/// Parsed `--name value` options and `--flag` switches.
private struct Options {
    var values: [String: String] = [:]
    var flags: Set<String> = []

    /// Parses `arguments`, or `nil` on anything unknown, repeated or missing its value.
    init?(_ arguments: [String], values names: Set<String>, flags known: Set<String>) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if known.contains(argument), !flags.contains(argument) {
                flags.insert(argument)
            } else if names.contains(argument), values[argument] == nil, let value = rest.popFirst() {
                values[argument] = value
            } else {
                return nil
            }
        }
    }
}

/// Shows progress on standard error: a bar on a terminal, plain lines otherwise.
private final class Progress: Sendable {
    private let label: String
    private let terminal = isatty(STDERR_FILENO) == 1
    private let last = Mutex<[Int]?>(nil)

    init(label: String) {
        self.label = label
    }

    /// Shows `done` of `total`, once per change.
    func show(_ done: Int, _ total: Int) {
        let changed = last.withLock { last in
            defer { last = [done, total] }
            return last != [done, total]
        }
        guard changed else { return }
        if terminal {
            let width = 30
            let filled = total == 0 ? width : width * done / total
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            Self.write("\r\(label) [\(bar)] \(done)/\(total)")
        } else {
            Self.write("\(label): \(done)/\(total)\n")
        }
    }

    /// Ends the bar's line on a terminal.
    func finish() {
        if terminal, last.withLock({ $0 != nil }) { Self.write("\n") }
    }

    /// Writes a log line.
    static func note(_ line: String) {
        write(line + "\n")
    }

    private static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
