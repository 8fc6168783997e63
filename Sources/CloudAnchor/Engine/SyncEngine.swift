import Foundation

/// Backs a snapshot of files up to a cloud storage, keeping every promise of the SyncEngine
/// contract (see `docs/cloud-anchor.md`).
///
/// Invariant: `sync` calls run one at a time in call order; the storage listing is the truth and
/// the state file a cache of it; every put is recorded in the state file before the next step,
/// with an intent saved before it so a put that completed before a crash is recognised and never
/// repeated; nothing is written while a write hold is set or a guard stops the run.
public actor SyncEngine {
    private let storage: any CloudStorage
    private let availability: any AvailabilitySource
    private let state: StateStore
    private let policy: SyncPolicy
    private let log: @Sendable (String) -> Void
    private let now: @Sendable () -> Date
    private let gate = AsyncGate()

    /// Creates an engine over `storage`, keeping its state in `state`.
    public init(storage: any CloudStorage, availability: any AvailabilitySource = FixedAvailability(),
                state: StateStore, policy: SyncPolicy = SyncPolicy(),
                log: @escaping @Sendable (String) -> Void = { _ in },
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.storage = storage
        self.availability = availability
        self.state = state
        self.policy = policy
        self.log = log
        self.now = now
    }

    /// Makes the cloud hold `snapshot`, calling `onProgress(done, total)` before the first step and
    /// after every put and delete.
    ///
    /// Returns `.unavailable` when a gate or guard stops the run; throws the `CloudError` of a
    /// failed put or listing (a failed delete never fails the run), or any non-cloud error as is.
    public func sync(_ snapshot: SyncSnapshot,
                     onProgress: @escaping @Sendable (_ done: Int, _ total: Int) -> Void = { _, _ in })
        async throws -> SyncOutcome {
        try await gate.withGate { try await run(snapshot, onProgress: onProgress) }
    }

    /// Looks for a backup without writing; never throws for cloud failures.
    public func probe() async -> ProbeResult {
        await BackupProbe(storage: storage, availability: availability, markerPath: policy.markerPath).run()
    }

    /// Persists a write hold; a run in progress stops before its next put or delete.
    public nonisolated func setHold(_ hold: WriteHold) async throws {
        try await state.setHold(hold)
    }

    /// The persisted write hold.
    public nonisolated func hold() async throws -> WriteHold {
        try await state.hold()
    }

    private func run(_ snapshot: SyncSnapshot, onProgress: @Sendable (Int, Int) -> Void) async throws -> SyncOutcome {
        if let reason = await BackupProbe.gate(availability) {
            return .unavailable(reason)
        }
        if try await state.hold() != .none { return .unavailable(.writeHeld) }
        let markerPath = policy.markerPath
        let listing = try await storage.list()
        let remote = Dictionary(listing.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let key = try await storage.identityKey()
        var current = try await state.loadSync()
        if let intent = current.intent {
            current.intent = nil
            if intent.completed(by: remote[intent.path]) {
                current.entries[intent.path] = StoredEntry(size: intent.size, hash: intent.hash)
                if intent.path == markerPath {
                    current.markerDirty = false
                    if key == nil, current.identity.isEmpty, let id = remote[markerPath]?.remoteId {
                        current.identity = id
                    }
                }
            }
        }
        let identity = key ?? remote[markerPath]?.remoteId ?? ""
        if identity != current.identity {
            if !current.identity.isEmpty || !current.entries.isEmpty {
                log("cloudanchor: the storage identity changed; the state is reset and everything uploads again")
            }
            current = SyncState(identity: identity)
        }
        current.entries = current.entries.filter { remote[$0.key] != nil }
        for file in listing where current.entries[file.path] == nil {
            current.entries[file.path] = StoredEntry(size: file.size, hash: nil)
        }
        try await state.replaceSync(current)

        if policy.guardEmptyOverExisting, snapshot.isEmpty, current.syncedAt == nil,
           listing.contains(where: { $0.path != markerPath }) {
            return .unavailable(.restorePending)
        }
        let diff = SyncDiff(snapshot: snapshot, state: current, remote: remote, markerPath: markerPath)
        if let shrink = policy.shrinkGuard, !snapshot.allowShrink {
            let known = current.entries.keys.count { $0 != markerPath }
            if known >= shrink.minRemoteEntries, Double(diff.deletes.count) > shrink.maxDeleteFraction * Double(known) {
                return .unavailable(.shrinkSuspected(deletes: diff.deletes.count, known: known))
            }
        }

        var report = SyncReport()
        let total = diff.uploads.count + (diff.uploadsMarker ? 1 : 0) + diff.deletes.count
        onProgress(0, total)
        for entry in diff.uploads {
            if try await state.hold() != .none { return .unavailable(.writeHeld) }
            try await put(entry, before: remote[entry.path], isMarker: false, adoptsIdentity: false)
            report.uploaded.append(entry.path)
            onProgress(report.uploaded.count, total)
        }
        if diff.uploadsMarker {
            if try await state.hold() != .none { return .unavailable(.writeHeld) }
            let marker = SyncEntry(path: markerPath, size: Int64(snapshot.marker.count),
                                   hash: ContentHash.sha256(snapshot.marker), source: .bytes(snapshot.marker))
            try await put(marker, before: remote[markerPath], isMarker: true,
                          adoptsIdentity: key == nil && current.identity.isEmpty)
            report.uploaded.append(markerPath)
            onProgress(report.uploaded.count, total)
        }
        for path in diff.deletes {
            if try await state.hold() != .none { return .unavailable(.writeHeld) }
            do {
                try await storage.delete(path)
                try await state.removeEntry(path)
                report.deleted.append(path)
            } catch let error as CloudError {
                log("cloudanchor: a delete failed and is retried next run: \(error)")
                report.failedDeletes.append(path)
            }
            onProgress(report.uploaded.count + report.deleted.count + report.failedDeletes.count, total)
        }
        try await state.finishSync(at: now())
        return .synced(report)
    }

    private func put(_ entry: SyncEntry, before: RemoteFile?, isMarker: Bool, adoptsIdentity: Bool) async throws {
        try await state.beginPut(PutIntent(path: entry.path, size: entry.size, hash: entry.hash,
                                     tagBefore: before?.contentTag, existedBefore: before != nil))
        let stored: RemoteFile
        switch entry.source {
        case .file(let url): stored = try await storage.writeFile(entry.path, from: url)
        case .bytes(let data): stored = try await storage.writeBytes(entry.path, data)
        case .absent: return
        }
        try await state.completePut(entry.path, StoredEntry(size: entry.size, hash: entry.hash), isMarker: isMarker,
                              identity: adoptsIdentity ? stored.remoteId : nil)
    }
}
