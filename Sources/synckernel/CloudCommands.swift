import CloudAnchor
import Foundation
import SyncKernel
import Synchronization

/// The `backup` and `restore` subcommands: a local directory backed up to, or restored from, a
/// folder (`folder:PATH`) or a WebDAV server (`webdav://[USER:PASSWORD@]HOST[:PORT]/PATH`, or
/// `webdavs://` for HTTPS; credentials may also come from CLOUDANCHOR_WEBDAV_USER and
/// CLOUDANCHOR_WEBDAV_PASSWORD).
///
/// Invariant: exit code 0 means every entry of the snapshot is in place and every file verified
/// by content hash (`DirectoryBackup` / `DirectoryRestore`); every other outcome has its own
/// code (see `ExitCode`) and names the files it concerns on standard output. Progress, warnings
/// and logs go to standard error; a usage error prints the usage.
enum CloudCommands {
    /// The process exit codes of `backup` and `restore`.
    enum ExitCode: Int32 {
        /// Every entry of the snapshot is in place and verified.
        case success = 0
        /// A cloud or local failure (the code, and for a local file its cause and path, are printed).
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
        /// Restore: some files failed for a passing reason; run again with --resume.
        case partial = 7
        /// Restore: no backup (or its marker is not ready yet).
        case nothingToRestore = 8
        /// Restore --resume: the cloud holds another backup than the one the restore started from.
        case sourceChanged = 9
        /// Backup: another backup holds the remote's writer lease.
        case remoteBusy = 10
        /// Backup: files changed while they were read; restore: files missing or damaged in the
        /// backup. The files are named; the next backup from the source uploads them again.
        case incomplete = 11
        /// Restore: the backup's manifest is damaged; nothing was written.
        case damagedManifest = 12
        /// Restore: the target holds other content at the backup's paths; nothing was written.
        case conflicts = 13
    }

    static let usage = """
        usage: synckernel backup --from DIR --to LOCATION [--state FILE] [--allow-shrink]
               synckernel restore --from LOCATION --to DIR [--state FILE] [--resume] [--overwrite]
        LOCATION: folder:PATH | webdav://[USER:PASSWORD@]HOST[:PORT]/PATH | webdavs://...
        exit codes: 0 every file in place and verified, 1 cloud or local error, 2 usage, 3 cloud unavailable,
                    4 restore pending (empty guard), 5 shrink suspected (shrink guard), 6 write held,
                    7 restore partial (--resume), 8 nothing to restore, 9 backup changed since the restore started,
                    10 remote busy (another backup), 11 incomplete (files named), 12 damaged manifest,
                    13 conflicts in the target (--overwrite)
        """

    /// Backs the directory `--from` up to `--to`; returns the exit code.
    static func backup(_ arguments: [String]) async -> Int32 {
        guard let options = Options(arguments, values: ["--from", "--to", "--state"], flags: ["--allow-shrink"]),
              let from = options.values["--from"], let to = options.values["--to"],
              let location = Location(to) else { return usageError() }
        let source = URL(fileURLWithPath: from).standardizedFileURL
        do {
            let statePath = try options.values["--state"] ?? defaultStatePath("backup", source, location)
            let state = try StateStore(path: statePath)
            let excluded = DirectoryScan.relativePath(of: statePath, below: source).map { path in
                Set(["", "-wal", "-shm", "-journal"].map { path + $0 })
            } ?? []
            let backup = DirectoryBackup(source: source, storage: location.storage, state: state, excluding: excluded,
                                         log: { Progress.note($0) }, prepare: { location.createFolder() })
            let progress = Progress(label: "backup")
            let outcome = try await backup.run(allowShrink: options.flags.contains("--allow-shrink")) { progress.show($0, $1) }
            progress.finish()
            return finished(outcome)
        } catch {
            return failed("backup", error)
        }
    }

    /// Restores `--from` into the directory `--to`, or continues the recorded restore with `--resume`.
    static func restore(_ arguments: [String]) async -> Int32 {
        guard let options = Options(arguments, values: ["--from", "--to", "--state"], flags: ["--resume", "--overwrite"]),
              let from = options.values["--from"], let to = options.values["--to"],
              let plain = Location(from) else { return usageError() }
        let target = URL(fileURLWithPath: to).standardizedFileURL
        do {
            let statePath = try options.values["--state"] ?? defaultStatePath("restore", target, plain)
            let state = try StateStore(path: statePath)
            let location = Location(from, cacheFolder: URL(fileURLWithPath: statePath + "-cache")) ?? plain
            let restorer = DirectoryRestore(storage: location.storage, state: state, target: target,
                                            overwrite: options.flags.contains("--overwrite"), placement: KernelStoreMarking())
            let progress = Progress(label: "restore")
            let report: @Sendable (RestoreProgress) -> Void = { progress.show($0.filesDone, $0.filesTotal) }
            let outcome = options.flags.contains("--resume")
                ? try await restorer.resume(onProgress: report) : try await restorer.start(onProgress: report)
            progress.finish()
            return finished(outcome)
        } catch {
            return failed("restore", error)
        }
    }

    private static func finished(_ outcome: BackupOutcome) -> Int32 {
        switch outcome {
        case .completed(let summary):
            warn(summary.skipped)
            print("backup: completed: \(summary.files) files, \(summary.links) links and \(summary.folders) folders "
                  + "in place and verified (\(summary.uploaded.count) uploaded, \(summary.deleted.count) deleted, "
                  + "\(summary.failedDeletes.count) deletes to retry)")
            return ExitCode.success.rawValue
        case .incomplete(let summary):
            warn(summary.skipped)
            for path in summary.changing { print("backup incomplete: changed while it was read: \(path)") }
            print("backup incomplete: \(summary.changing.count) files were not backed up; run backup again when they are not being written")
            return ExitCode.incomplete.rawValue
        case .unreadable(let problems):
            for problem in problems { print("backup failed: \(problem)") }
            print("backup failed: nothing was written")
            return ExitCode.cloudError.rawValue
        case .stopped(let reason):
            return stopped(by: reason)
        }
    }

    private static func finished(_ outcome: DirectoryRestoreOutcome) -> Int32 {
        switch outcome {
        case .completed(let summary):
            print("restore: completed: \(summary.files) files (\(summary.alreadyInPlace) already in place), "
                  + "\(summary.links) links and \(summary.folders) folders; every file verified by content hash")
            return ExitCode.success.rawValue
        case .incomplete(let problems):
            let shortfall = RestoreShortfall(problems)
            for problem in shortfall.listed { print("restore incomplete: \(problem)") }
            print("restore incomplete: \(shortfall.summary)")
            if shortfall.isBackupsFault {
                print("restore incomplete: run backup again from the source (it uploads these files again), then restore --resume")
                return ExitCode.incomplete.rawValue
            }
            print("restore: \(problems.count) files pending; run again with --resume")
            return ExitCode.partial.rawValue
        case .conflicts(let conflicts):
            for conflict in conflicts { print("restore refused: \(conflict)") }
            print("restore refused: nothing was written; pass --overwrite to replace what differs")
            return ExitCode.conflicts.rawValue
        case .damagedManifest:
            print("restore failed: \(CloudError.manifestDamaged.code): the backup's manifest is damaged; "
                  + "nothing was written; run backup again from the source")
            return ExitCode.damagedManifest.rawValue
        case .nothingToRestore:
            print("restore: no complete backup at that location (or no restore to resume)")
            return ExitCode.nothingToRestore.rawValue
        case .sourceChanged:
            print("restore: the backup changed since this restore started; start a new restore")
            return ExitCode.sourceChanged.rawValue
        case .unavailable(let reason):
            return stopped(by: reason)
        }
    }

    private static func warn(_ skipped: [DirectoryScan.Skipped]) {
        for entry in skipped { Progress.note("warning: \(entry)") }
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
        case .remoteBusy(let owner, let until):
            let time = until.map { " until \($0.ISO8601Format())" } ?? ""
            print("stopped: another backup (\(owner)) is writing to this location\(time); nothing was written; try again later")
            return ExitCode.remoteBusy.rawValue
        }
    }

    private static func failed(_ command: String, _ error: any Error) -> Int32 {
        let text = switch error {
        case let problem as FileProblem: problem.description
        case let error as CloudError: error.description
        default: "unexpected error"
        }
        print("\(command) failed: \(text)")
        return ExitCode.cloudError.rawValue
    }

    private static func usageError() -> Int32 {
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        return ExitCode.usage.rawValue
    }

    /// The state file used when `--state` is not given: outside the backed-up or restored folder
    /// (so no user file can collide with it), in `$XDG_STATE_HOME/synckernel` (else
    /// `~/.local/state/synckernel`), named after the command and a hash of the folder and the
    /// location (the password left out).
    private static func defaultStatePath(_ command: String, _ folder: URL, _ location: Location) throws(FileProblem) -> String {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/state")
        let directory = base + "/synckernel"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw FileProblem(FileProblem.Cause(error), path: directory)
        }
        let key = ContentHash.sha256(Data((folder.path + "\n" + location.key).utf8)).prefix(32)
        return directory + "/cloudanchor-\(command)-\(key).sqlite"
    }
}

/// A parsed `--to` / `--from` location.
///
/// Invariant: `key` names the location without any password; `storage` is the backend over it.
private struct Location: Sendable {
    let storage: any CloudStorage
    let key: String
    private let folder: URL?

    /// Parses `location`, or `nil` when it names none; a WebDAV location downloads through a
    /// cache in `cacheFolder` when given (prefetched, kept by ETag across runs).
    init?(_ location: String, cacheFolder: URL? = nil) {
        if location.hasPrefix("folder:") {
            let path = String(location.dropFirst("folder:".count))
            guard !path.isEmpty else { return nil }
            let root = URL(fileURLWithPath: path).standardizedFileURL
            storage = FolderStorage(root: root)
            key = "folder:" + root.path
            folder = root
            return
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
        storage = WebDAVStorage(baseURL: url, credentials: credentials, cacheFolder: cacheFolder)
        key = "webdav:" + (user.map { $0 + "@" } ?? "") + url.absoluteString
        folder = nil
    }

    /// Creates a `folder:` location's folder (a drive folder that is missing otherwise reads as offline).
    func createFolder() {
        if let folder { try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
    }
}

/// Marks every placed SQLite database restored (`KernelStore.markRestored(storeAt:)`), so a
/// SyncKernel store among the restored files takes a fresh device epoch before its first write
/// instead of counting on from the backup's counters. The files were verified by content hash
/// before they were offered.
///
/// Invariant: places every group whose stores could be marked; rejects a group otherwise.
private struct KernelStoreMarking: RestorePlacement {
    func place(_ group: RestoreGroup) async -> PlacementDecision {
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
