import Foundation

/// Backs a local folder up to a cloud storage: the `synckernel backup` command's engine.
///
/// Invariant: the storage holds each regular file of the scan at `files/<path>` and the
/// manifest (`Manifest`) as the marker, so no user name can collide with the engine's own
/// (`cloudanchor.marker` and every other engine name live beside `files/`, never inside it);
/// `.completed` is returned only when every file, link and folder of the scan is described by the
/// uploaded manifest and every file's remote copy is the one recorded after its put; nothing is
/// written when the source cannot be read (`.unreadable` names every file) or a guard stops the
/// run; a file that changed while it was read is scanned and sent again (three runs in all) and
/// then reported by name (`.incomplete`), its previous remote copy kept.
public struct DirectoryBackup: Sendable {
    /// Where user files live in the storage.
    public static let contentPrefix = "files/"
    /// How many runs a backup makes while files change under it.
    static let attempts = 3

    private let source: URL
    private let engine: SyncEngine
    private let excluding: Set<String>
    private let prepare: @Sendable () throws -> Void

    /// A backup of `source` into `storage`, with its state in `state`. `excluding` lists relative
    /// paths to leave out (a state file kept inside the folder); `prepare` runs once after the
    /// source was found readable and before the storage is touched (the CLI creates a `folder:`
    /// remote there, so a missing source never creates one).
    public init(source: URL, storage: any CloudStorage, state: StateStore,
                availability: any AvailabilitySource = FixedAvailability(),
                policy: SyncPolicy = DirectoryBackup.policy, excluding: Set<String> = [],
                log: @escaping @Sendable (String) -> Void = { _ in },
                prepare: @escaping @Sendable () throws -> Void = {}) {
        self.source = source
        self.engine = SyncEngine(storage: storage, availability: availability, state: state, policy: policy, log: log)
        self.excluding = excluding
        self.prepare = prepare
    }

    /// The contract's defaults, with the marker compared by content (`uploadsChangedMarker`).
    public static var policy: SyncPolicy {
        SyncPolicy(uploadsChangedMarker: true)
    }

    /// Runs the backup; `allowShrink` lifts the shrink guard for this backup.
    ///
    /// Throws `FileProblem` when the source folder itself cannot be read (or a file becomes
    /// unreadable during the put) and the storage's `CloudError` when the cloud fails.
    public func run(allowShrink: Bool = false,
                    onProgress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in })
        async throws -> BackupOutcome {
        var summary = BackupSummary()
        var prepared = false
        for attempt in 1...Self.attempts {
            let scan = try DirectoryScan.scan(source, excluding: excluding)
            if !scan.problems.isEmpty { return .unreadable(scan.problems) }
            if !prepared {
                try prepare()
                prepared = true
            }
            let outcome: SyncOutcome
            do {
                outcome = try await engine.sync(Self.snapshot(scan, allowShrink: allowShrink), onProgress: onProgress)
            } catch let problem as FileProblem {
                throw FileProblem(problem.cause, path: Self.userPath(problem.path), error: problem.error)
            }
            let report: SyncReport
            switch outcome {
            case .synced(let synced): report = synced
            case .unavailable(let reason): return .stopped(reason)
            }
            summary.files = scan.files.count
            summary.links = scan.manifest.links.count
            summary.folders = scan.manifest.folders.count
            summary.skipped = scan.skipped
            summary.uploaded += report.uploaded.compactMap(Self.userPathIfContent)
            summary.deleted += report.deleted.compactMap(Self.userPathIfContent)
            summary.failedDeletes = report.failedDeletes.compactMap(Self.userPathIfContent)
            summary.changing = (scan.changing + report.changedWhileReading.map(Self.userPath)).sorted { $0.bytesPrecede($1) }
            if summary.changing.isEmpty { return .completed(summary) }
            if attempt == Self.attempts { break }
        }
        return .incomplete(summary)
    }

    /// The engine's snapshot of a scan: every file under `files/`, hash-compared with its stamp,
    /// files that kept changing declared absent (their remote copy is kept), the manifest as marker.
    static func snapshot(_ scan: DirectoryScan, allowShrink: Bool) -> SyncSnapshot {
        var entries = scan.files.map { file in
            SyncEntry(path: contentPrefix + file.path, size: file.size, hash: file.sha256,
                      source: .file(URL(fileURLWithPath: file.localPath)), stamp: file.stamp)
        }
        entries += scan.changing.map { SyncEntry.absent(contentPrefix + $0) }
        let isEmpty = scan.files.isEmpty && scan.changing.isEmpty && scan.manifest.links.isEmpty
        return SyncSnapshot(entries: entries, marker: scan.manifest.encoded(), isEmpty: isEmpty, allowShrink: allowShrink)
    }

    /// The user's path of a storage path below `files/`, or `nil` for an engine path.
    static func userPathIfContent(_ path: String) -> String? {
        path.bytesHavePrefix(contentPrefix) ? userPath(path) : nil
    }

    /// The storage path without the `files/` prefix (unchanged when it has none).
    static func userPath(_ path: String) -> String {
        guard path.bytesHavePrefix(contentPrefix) else { return path }
        return String(decoding: path.utf8.dropFirst(contentPrefix.utf8.count), as: UTF8.self)
    }
}
