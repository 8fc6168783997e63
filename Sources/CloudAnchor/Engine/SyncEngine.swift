import Foundation
import SQLiteStore
#if canImport(Glibc)
import Glibc
#endif

/// Backs a snapshot of files up to a cloud storage, keeping every promise of the SyncEngine
/// contract (see `docs/cloud-anchor.md`).
///
/// Invariant: `sync` calls run one at a time in call order; the storage listing is the truth and
/// the state file a cache of it, trusted for a file only while the listed size and content tag
/// are the ones recorded after its put (paths compared byte for byte); every put is recorded in
/// the state file before the next step, with an intent saved before it so a put that completed
/// before a crash is recognised and never repeated, and a file that changed while it was sent is
/// never recorded; nothing is written while a write hold is set or a guard stops the run. A run
/// writes only while it holds the storage's writer lease (`SyncPolicy.leaseDuration`; a run that
/// cannot get it returns `.remoteBusy` having written nothing), removes what a killed run left
/// (`removeOrphans`) first, and releases the lease when it ends, however it ends.
public actor SyncEngine {
    private let storage: any CloudStorage
    private let availability: any AvailabilitySource
    private let state: StateStore
    private let policy: SyncPolicy
    private let log: @Sendable (String) -> Void
    private let now: @Sendable () -> Date
    private let gate = AsyncGate()
    private var lease: RemoteLease?
    /// The actor's own thread: its local file work (staging, hashing, the marker) blocks there,
    /// never on the cooperative pool.
    package nonisolated let executor = SerialThreadExecutor(name: "synckernel.cloud-sync")

    /// The actor's executor: `executor`.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

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
    /// failed put or listing (a failed delete never fails the run), a `FileProblem` naming a
    /// `.file` entry whose local file could not be read, or any other error as is.
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
        guard !snapshot.entries.contains(where: { $0.path.bytesEqual(LeaseRecord.path) }) else { throw CloudError.invalidPath }
        guard let duration = policy.leaseDuration else { return try await runHoldingLease(snapshot, onProgress: onProgress) }
        let previousHandle = try await state.leaseHandle()
        let claim = LeaseClaim(owner: LeaseClaim.thisProcess, token: try await state.writerID(), duration: duration,
                               now: now(), previousHandle: previousHandle)
        switch try await storage.acquireLease(claim) {
        case .held(let owner, let until):
            return .unavailable(.remoteBusy(owner: owner, until: until))
        case .granted(let granted):
            lease = granted
            defer { lease = nil }
            do {
                if granted.handle != previousHandle { try await state.setLeaseHandle(granted.handle) }
                let outcome = try await runHoldingLease(snapshot, onProgress: onProgress)
                await storage.releaseLease(lease ?? granted)
                if granted.handle != nil { try await state.setLeaseHandle(nil) }
                return outcome
            } catch {
                await storage.releaseLease(lease ?? granted)
                throw error
            }
        }
    }

    /// Renews the lease once half of it has passed; the reason to stop when it was lost.
    private func keepLease() async throws -> UnavailableReason? {
        guard let held = lease, let duration = policy.leaseDuration,
              held.expiresAt.timeIntervalSince(now()) < duration / 2 else { return nil }
        let claim = LeaseClaim(owner: held.owner, token: held.token, duration: duration, now: now(),
                               previousHandle: held.handle)
        switch try await storage.renewLease(held, for: claim) {
        case .granted(let renewed):
            lease = renewed
            return nil
        case .held(let owner, let until):
            return .remoteBusy(owner: owner, until: until)
        }
    }

    /// One run once the lease is held (or none is used): removes a killed run's orphans, lists,
    /// verifies the state against the listing, and uploads and deletes what differs.
    private func runHoldingLease(_ snapshot: SyncSnapshot, onProgress: @Sendable (Int, Int) -> Void) async throws
        -> SyncOutcome {
        let orphans = try await storage.removeOrphans()
        if !orphans.isEmpty { log("cloudanchor: removed \(orphans.count) temporary files a killed run left") }
        let markerPath = policy.markerPath
        let key = try await storage.identityKey()
        let listing = try await listRemote(identity: key ?? "").filter { !$0.path.bytesEqual(LeaseRecord.path) }
        let remote = Dictionary(listing.map { (ExactPath($0.path), $0) }, uniquingKeysWith: { first, _ in first })
        var current = try await state.loadSync()
        if let intent = current.intent {
            current.intent = nil
            if intent.completed(by: remote[ExactPath(intent.path)]) {
                current.entries[ExactPath(intent.path)] = StoredEntry(size: intent.size, hash: intent.hash,
                                                                      tag: remote[ExactPath(intent.path)]?.contentTag)
                if intent.path == markerPath {
                    current.markerDirty = false
                    if key == nil, current.identity.isEmpty, let id = remote[ExactPath(markerPath)]?.remoteId {
                        current.identity = id
                    }
                }
            }
        }
        let identity = key ?? remote[ExactPath(markerPath)]?.remoteId ?? ""
        if identity != current.identity {
            if !current.identity.isEmpty || !current.entries.isEmpty {
                log("cloudanchor: the storage identity changed; the state is reset and everything uploads again")
            }
            current = SyncState(identity: identity)
        }
        var verified: [ExactPath: StoredEntry] = [:]
        for (path, stored) in current.entries {
            if let file = remote[path] { verified[path] = stored.verified(by: file) }
        }
        for file in listing where verified[ExactPath(file.path)] == nil {
            verified[ExactPath(file.path)] = StoredEntry(size: file.size, hash: nil, tag: file.contentTag)
        }
        current.entries = verified
        try await state.replaceSync(current)

        if policy.guardEmptyOverExisting, snapshot.isEmpty, current.syncedAt == nil,
           listing.contains(where: { !$0.path.bytesEqual(markerPath) }) {
            return .unavailable(.restorePending)
        }
        let diff = SyncDiff(snapshot: snapshot, state: current, remote: remote, markerPath: markerPath,
                            uploadsChangedMarker: policy.uploadsChangedMarker)
        if let shrink = policy.shrinkGuard, !snapshot.allowShrink {
            let known = current.entries.keys.count { $0 != ExactPath(markerPath) }
            if known >= shrink.minRemoteEntries, Double(diff.deletes.count) > shrink.maxDeleteFraction * Double(known) {
                return .unavailable(.shrinkSuspected(deletes: diff.deletes.count, known: known))
            }
        }

        var report = SyncReport()
        let total = diff.uploads.count + (diff.uploadsMarker ? 1 : 0) + diff.deletes.count
        var done = 0
        onProgress(0, total)
        for entry in diff.uploads {
            if try await state.hold() != .none { return .unavailable(.writeHeld) }
            if let lost = try await keepLease() { return .unavailable(lost) }
            if try await put(entry, before: remote[ExactPath(entry.path)], isMarker: false, adoptsIdentity: false) {
                report.uploaded.append(entry.path)
            } else {
                report.changedWhileReading.append(entry.path)
            }
            done += 1
            onProgress(done, total)
        }
        if diff.uploadsMarker {
            if try await state.hold() != .none { return .unavailable(.writeHeld) }
            if let lost = try await keepLease() { return .unavailable(lost) }
            let marker = SyncEntry(path: markerPath, size: Int64(snapshot.marker.count),
                                   hash: ContentHash.sha256(snapshot.marker), source: .bytes(snapshot.marker))
            _ = try await put(marker, before: remote[ExactPath(markerPath)], isMarker: true,
                              adoptsIdentity: key == nil && current.identity.isEmpty)
            report.uploaded.append(markerPath)
            done += 1
            onProgress(done, total)
        }
        for path in diff.deletes {
            if try await state.hold() != .none { return .unavailable(.writeHeld) }
            if let lost = try await keepLease() { return .unavailable(lost) }
            do {
                try await storage.delete(path)
                try await state.removeEntry(path)
                report.deleted.append(path)
            } catch let error as CloudError {
                log("cloudanchor: a delete failed and is retried next run: \(error)")
                report.failedDeletes.append(path)
            }
            done += 1
            onProgress(done, total)
        }
        try await state.finishSync(at: now())
        return .synced(report)
    }

    /// The storage's listing through its change feed: the changes since the persisted checkpoint
    /// applied to the listing saved with it (token and records saved together). A checkpoint of
    /// another identity is discarded; one the storage can no longer serve resets the checkpoint
    /// and the listing is fetched from the beginning, once. A storage without a feed is listed
    /// whole and nothing is persisted.
    private func listRemote(identity: String) async throws -> [RemoteFile] {
        let saved = try await state.loadCheckpoint()
        var base = saved?.identity == identity ? saved : nil
        if saved != nil, base == nil { log("cloudanchor: the change checkpoint belongs to another account; listing everything") }
        var changes: RemoteChanges
        do {
            changes = try await storage.changes(since: base?.token)
        } catch CloudError.changeTokenExpired where base != nil {
            log("cloudanchor: the change checkpoint can no longer be used; listing everything once")
            base = nil
            changes = try await storage.changes(since: nil)
        }
        if changes.checkpoint == nil && saved == nil { return changes.changed }
        var files = changes.isComplete ? [:] : base?.files ?? [:]
        for path in changes.deleted { files[ExactPath(path)] = nil }
        for file in changes.changed { files[ExactPath(file.path)] = file }
        if base == nil, !changes.isComplete { changes = RemoteChanges(isComplete: true, changed: Array(files.values),
                                                                      checkpoint: changes.checkpoint) }
        try await state.saveCheckpoint(identity: identity, changes)
        return files.values.sorted { $0.path.bytesPrecede($1.path) }
    }

    /// Puts one entry and records it; returns `false`, recording nothing as backed up, when its
    /// file changed since it was hashed (checked before the put and after it, against the
    /// entry's stamp and the size the storage reports).
    private func put(_ entry: SyncEntry, before: RemoteFile?, isMarker: Bool, adoptsIdentity: Bool) async throws -> Bool {
        var fileSource: URL?
        if case .file(let url) = entry.source { fileSource = url }
        if let fileSource, let stamp = entry.stamp, FileStamp.of(path: fileSource.path) != stamp { return false }
        try await state.beginPut(PutIntent(path: entry.path, size: entry.size, hash: entry.hash,
                                           tagBefore: before?.contentTag, existedBefore: before != nil))
        let stored: RemoteFile
        do {
            switch entry.source {
            case .file(let url): stored = try await storage.writeFile(entry.path, from: url)
            case .bytes(let data): stored = try await storage.writeBytes(entry.path, data)
            case .absent: return true
            }
        } catch CloudError.localIO where fileSource != nil {
            let path = fileSource?.path ?? ""
            let cause = access(path, R_OK) == 0 ? FileProblem.Cause.ioError : FileProblem.Cause(errno: errno)
            throw FileProblem(cause, path: entry.path)
        }
        if let fileSource, let stamp = entry.stamp,
           FileStamp.of(path: fileSource.path) != stamp || stored.size != entry.size {
            try await state.abandonPut(entry.path)
            return false
        }
        try await state.completePut(entry.path, StoredEntry(size: entry.size, hash: entry.hash, tag: stored.contentTag),
                                    isMarker: isMarker, identity: adoptsIdentity ? stored.remoteId : nil)
        return true
    }
}
