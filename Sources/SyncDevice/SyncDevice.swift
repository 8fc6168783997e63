import NatsRelay
import SnapshotTransfer
import SyncEnvelope
import SyncJoin
import SyncKernel
import SyncRelay

/// The one object an app holds per device: it opens the store, loads the device's keys and
/// certificate from the account directory, connects the relay, runs the convergence loop with
/// every frame sealed end to end, takes local writes, and reports events and status.
///
///     let device = SyncDevice(SyncDeviceConfiguration(account: AccountDirectory(path: dir), name: "phone",
///                                                     storePath: db, namespaces: try NamespaceSet([NotebookNamespace.self]),
///                                                     relay: NatsRelayOptions(servers: ["nats://127.0.0.1:4222"])))
///     try await device.start()
///     try await device.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
///     await device.stop()
///
/// Invariants:
/// - `start()` and `stop()` are idempotent and may be called in any order, any number of times,
///   from any task: they run one at a time, in the order they were called; a start after a stop
///   runs the device again on the same files.
/// - A write returns only after its transaction committed (`synchronous=FULL`), and `stop()`
///   waits for writes in flight before it closes the store, so no acknowledged write is lost. A
///   write while the device is not running throws `deviceNotRunning` and writes nothing.
/// - Every envelope from the relay passes the self-gate before any byte of its frame is parsed;
///   every frame sent is sealed to exactly one sibling.
/// - On `.connected` and `.reconnected` the device announces itself to its siblings; the relay
///   keeps nothing for it, and the digest loop catches up from there.
/// - A running device admits others: it listens on its account's discovery subject, runs the
///   sign-in ladder (`JoinResponder`) and reports each request that passes as
///   `approvalRequested`; only `approve(_:)` admits anyone, and a credential
///   admits one device (the sign-in ledger, shared with the members in sealed notices on the
///   discovery subject, which also withdraw a prompt another sibling decided). It answers its
///   siblings' snapshot requests, and its gate learns a device its account certified the first
///   time an envelope of it passes every other check.
/// - A device with no account joins one (`join(_:)`, before `start()`): nothing is written unless a
///   sibling approves; then `start()` and `absorbSnapshot()` make it a member with its siblings'
///   store.
/// - The library keeps no global state: everything comes from the configuration.
public actor SyncDevice {
    private enum Phase {
        case stopped
        case running(RunningDevice)
        case stopping
    }

    /// What the device runs on.
    public nonisolated let configuration: SyncDeviceConfiguration
    private let monitor: DeviceMonitor
    private var phase = Phase.stopped
    /// The last start or stop asked for: each one waits for the one before it.
    private var lifecycle: Task<Void, Never>?
    private var writesInFlight = 0
    private var drained: [CheckedContinuation<Void, Never>] = []
    /// Where the device's blocking calls go (opening the store and the relay, reading its files
    /// when it is not running, flushing and closing on stop), so none runs on this actor or holds
    /// a thread of the cooperative pool.
    private let io = SerialThreadExecutor(name: "synckernel.device")
    /// Where an app's reads run: beside the device's own connection, never waiting for it.
    private nonisolated let reads = SerialThreadExecutor(name: "synckernel.reads")

    /// A device configured with `configuration`; nothing is opened until `start()`.
    public init(_ configuration: SyncDeviceConfiguration) {
        self.configuration = configuration
        monitor = DeviceMonitor(clock: configuration.wallClock)
    }

    deinit {
        if case .running(let running) = phase { running.abandon() }
        monitor.events.finish()
        monitor.statuses.finish()
        monitor.commits.finish()
    }

    /// The device's events from now on: each access is a new subscription (any number may read
    /// at once); a subscriber that stops reading keeps at most the newest 4,096.
    public nonisolated var events: AsyncStream<SyncDeviceEvent> {
        monitor.events.subscribe()
    }

    /// The device's status after every change from now on (the newest one, for a subscriber that
    /// reads slower than it changes): each access is a new subscription, which first receives the
    /// status as it is (once the device runs); every status it receives was read after it
    /// subscribed, so it reflects every write that returned before.
    public nonisolated var status: AsyncStream<DeviceStatus> {
        let stream = monitor.statuses.subscribe()
        monitor.changed()
        return stream
    }

    /// Whether the device is running (started and not stopping).
    public var isRunning: Bool {
        if case .running = phase { return true }
        return false
    }

    /// The device's id, once it ran (it is the device's signing public key).
    public var device: DeviceID? {
        if case .running(let running) = phase { return running.keys.device }
        return nil
    }

    /// Starts the device: loads its keys, opens (or creates) its store, connects the relay
    /// (returning when a server holds the inbox, or at once when none answers yet: the client
    /// keeps trying and the device announces itself when it connects) and starts the loop.
    /// Does nothing when it runs. Throws the first failure, having closed whatever it opened: a
    /// `SyncKernelError` for the keys and the store (`keyFileUnavailable`, `invalidCertificate`,
    /// `notAStore`, ...), a `RelayError` for the relay (`invalidRelayConfiguration`, ...).
    public func start() async throws {
        let outcome = await enqueue { device in await device.performStart() }
        try outcome.get()
    }

    /// Stops the device: refuses new writes, waits for those in flight, ends the loop, flushes and
    /// closes the relay connection, records the siblings beside the store and closes the store.
    /// Does nothing when it is not running.
    public func stop() async {
        _ = await enqueue { device in await device.performStop() }
    }

    /// Runs a local write on namespace `N` in one transaction; returns once it committed, after
    /// which the digest loop tells the siblings (after the debounce). Throws `SyncDeviceError`
    /// `deviceNotRunning` when the device is not running, or the write's own `SyncKernelError`
    /// (nothing of it is stored).
    @discardableResult
    public func write<N: SyncNamespace>(_ namespace: N.Type,
                                        _ body: @Sendable (NamespaceTransaction<N>) throws(SyncKernelError) -> Void)
        async throws -> WriteOutcome {
        guard case .running(let running) = phase else { throw SyncDeviceError(.deviceNotRunning) }
        writesInFlight += 1
        defer { finishWrite() }
        let outcome = try await running.host.write(namespace, body)
        monitor.committed()
        monitor.changed()
        return outcome
    }

    /// Reads namespace `N` inside one read transaction and returns what `body` returns: a row by
    /// key, pages of rows in key order (all, or by key prefix), the count, the keys in conflict
    /// (`NamespaceReader`). Works whether or not the device runs (before the first start, after a
    /// failed one, while it stops): the read goes through a read-only connection of its own to the
    /// store file, on a thread of its own, so it never waits for a write, a sync or a snapshot
    /// export and holds none of them up; it sees every write that returned before it was called.
    /// Throws `notAStore` when the store does not exist yet (nothing was ever started or written),
    /// `unknownNamespace` for a namespace the configuration does not sync, or `body`'s own error.
    public nonisolated func read<N: SyncNamespace, T: Sendable>(
        _ namespace: N.Type, _ body: @escaping @Sendable (NamespaceReader<N>) throws(SyncKernelError) -> T
    ) async throws(SyncKernelError) -> T {
        let (path, namespaces) = (configuration.storePath, configuration.namespaces)
        return try await reads.run { () throws(SyncKernelError) -> T in
            let connection = try StoreReadConnection(path: path, namespaces: namespaces)
            defer { connection.close() }
            return try connection.read(namespace, body)
        }
    }

    /// The change feed of namespace `N` from the change numbered `cursor` on (0: from the first,
    /// so every row the store holds): each committed change of a key (its row now, or nil for a
    /// delete; whether it is in conflict; local, from which sibling, or imported), in number
    /// order, then each later one as it commits, local or merged, until the consumer stops
    /// iterating (the task is cancelled) or the device is released. An app that mirrors the store
    /// in its own tables stores each change's `cursor` with what it wrote and passes the last one
    /// back after a crash: it misses nothing and ends equal to the store. Pages are read only as
    /// the consumer asks for them, through `read`, so a slow consumer holds one page. Works whether
    /// or not the device runs (changes come from a running device; before the first start the feed
    /// waits for one). Throws what a read throws but `notAStore`.
    public nonisolated func changes<N: SyncNamespace>(_ namespace: N.Type, after cursor: UInt64 = 0) -> ChangeFeed<N> {
        ChangeFeed(device: self, commits: monitor.commits.subscribe(), after: cursor)
    }

    /// Observes `query` over namespace `N`: its value now, then its value after every commit
    /// (local, or a sibling's merged) that touched a key of `region` and changed the value, until
    /// the consumer stops iterating; commits that arrive while the consumer is busy are coalesced
    /// (`Observation`). The query runs through `read`, in one read transaction; `region` must
    /// cover every key it reads (`.namespace`, the default, covers all).
    public nonisolated func observe<N: SyncNamespace, Value: Sendable & Equatable>(
        _ namespace: N.Type, region: ObservedRegion = .namespace,
        _ query: @escaping @Sendable (NamespaceReader<N>) throws(SyncKernelError) -> Value
    ) -> Observation<N, Value> {
        Observation(device: self, commits: monitor.commits.subscribe(), region: region, query: query)
    }

    /// Observes the row of `key` in namespace `N`: the row now (nil: none), then the row after
    /// every commit that changed it (a delete yields nil).
    public nonisolated func observe<N: SyncNamespace>(_ namespace: N.Type, key: [UInt8]) -> Observation<N, N.Row?>
        where N.Row: Equatable {
        observe(namespace, region: .key(key)) { reader throws(SyncKernelError) in try reader.row(forKey: key) }
    }

    /// What each sibling has not seen yet of this device's writes to namespace `N`, as
    /// CKSyncEngine's pending changes: the keys written since the two last held equal roots
    /// (pushed and not acknowledged, or not pushed yet; none when the sibling is in step), or
    /// `unknown` when this run has not seen the sibling in step yet (`PendingChanges`). Read
    /// them with `read`. Throws `SyncDeviceError` `deviceNotRunning` when the device is not running
    /// (the list lives in the running replica; a clean stop keeps it for the next run) and
    /// `SyncKernelError` `unknownNamespace`.
    public func pendingChanges<N: SyncNamespace>(_ namespace: N.Type) async throws -> [DeviceID: PendingChanges] {
        guard case .running(let running) = phase else { throw SyncDeviceError(.deviceNotRunning) }
        return try await running.host.pendingChanges(namespace)
    }

    /// The status now: the running device's own, or, when it is not running, the one read from
    /// its store's files (`DeviceStatus(storeAt:)`: `notAStore` before the first start).
    public func currentStatus() async throws(SyncKernelError) -> DeviceStatus {
        if case .running(let running) = phase { return await running.status() }
        let path = configuration.storePath
        return try await io.run { () throws(SyncKernelError) in try DeviceStatus(storeAt: path) }
    }

    /// Asks the account of `credential` to admit this device, before `start()`: subscribes a fresh
    /// reply subject on the relay, sends the sign-in request (re-sent per
    /// `configuration.joinPolicy`), waits for a sibling's decision and, on a grant, writes the
    /// account directory at `configuration.account` (all files or none) under
    /// `configuration.name`. Events: the `join...` cases (the countdown: `joinWaiting`). Throws
    /// `JoinError` `joinRejected`, `joinRefused` (the credential spent or revoked, or too many
    /// requests pending) or `joinTimedOut` (no sibling answered: with no device of the account
    /// online nothing admits this one; or a sibling answered and nobody decided); a
    /// `SyncKernelError` storing error, or `keyFileUnavailable` when the directory is not missing
    /// or empty or the device runs already; or a `RelayError` when the relay refuses the reply
    /// subject's connection. On every failure nothing was written: no account directory, no store.
    public func join(_ credential: SignInCredential) async throws -> JoinedAccount {
        guard case .stopped = phase else { throw SyncKernelError(.keyFileUnavailable, "a running device has an account already") }
        let relay = try configuration.relay.validated()
        let carrier = RelayJoinCarrier()
        let monitor = monitor
        let requester = try JoinRequester(credential: credential, directory: configuration.account, name: configuration.name,
                                          carrier: carrier, policy: configuration.joinPolicy) { event in
            monitor.emit(SyncDeviceEvent(event))
        }
        // The reply subject is subscribed (and flushed to the server) before the first send.
        let replySubject = requester.replySubject.value
        let connection = try await io.run { () throws(RelayError) in try relay.connect(inbox: replySubject) }
        carrier.attach(connection)
        let replies = Task {
            for await message in connection.messages { await requester.deliver(message) }
        }
        let outcome: Result<JoinedAccount, any Error>
        do {
            outcome = .success(try await requester.outcome())
        } catch {
            outcome = .failure(error)
        }
        await io.run { connection.close() }
        replies.cancel()
        return try outcome.get()
    }

    /// Asks every sibling for a snapshot of its store and absorbs the first one that passes its
    /// checks (the device must be running; `join` then `start` first). Re-sends every
    /// `configuration.snapshotInterval` up to `configuration.snapshotMaxSends` times; the first send
    /// to each sibling alone is wake-class. Events: `snapshotRequestSent`, `snapshotReply`,
    /// `snapshotProgress` (bytes downloaded, rows imported), `snapshotAbsorbed` or
    /// `snapshotAbandoned`, and `snapshotFailed` on a throw. Throws `SyncDeviceError`:
    /// `deviceNotRunning` (also while another `absorbSnapshot()` of this run is under way),
    /// `snapshotTimedOut`, `snapshotDeclined`, `snapshotSiblingFailed` (declined and broken stay
    /// apart); or the absorb's `SnapshotTransferError` (`snapshotHashMismatch`, ...) or store
    /// `SyncKernelError` when every offer
    /// failed its checks; then nothing of the offered blobs was imported. Whatever happens, the device stays a
    /// running member and the digest loop backfills (also the writes made during the transfer).
    public func absorbSnapshot() async throws -> SnapshotAbsorbReport {
        guard case .running(let running) = phase else { throw SyncDeviceError(.deviceNotRunning) }
        return try await running.desk.absorb(keys: running.keys, siblings: running.siblings, interval: configuration.snapshotInterval,
                                             maxSends: configuration.snapshotMaxSends)
    }

    /// The sign-in requests waiting for this device's user, oldest first (none when not running).
    public func pendingApprovals() async -> [PendingApproval] {
        guard case .running(let running) = phase else { return [] }
        return await running.responder.pendingApprovals()
    }

    /// Admits the device of the pending request `id`: issues its certificate, records it and the
    /// credential's spend in the account directory, sends the grant and tells the other members.
    /// Throws `SyncDeviceError` `deviceNotRunning`; `JoinError` `approvalNotPending` for an id
    /// that is not waiting; `SyncKernelError` `keyFileUnavailable` for a name or keys in use here.
    public func approve(_ id: ApprovalID) async throws {
        guard case .running(let running) = phase else { throw SyncDeviceError(.deviceNotRunning) }
        try await running.responder.approve(id)
    }

    /// Refuses the pending request `id` (a rejection is sent, nothing recorded). Throws
    /// `SyncDeviceError` `deviceNotRunning`; `JoinError` `approvalNotPending`.
    public func reject(_ id: ApprovalID) async throws {
        guard case .running(let running) = phase else { throw SyncDeviceError(.deviceNotRunning) }
        try await running.responder.reject(id)
    }

    /// Queues `step` after every start and stop asked for before it and returns its outcome.
    private func enqueue(_ step: @escaping @Sendable (SyncDevice) async -> Result<Void, any Error>)
        async -> Result<Void, any Error> {
        let previous = lifecycle
        let task = Task { () async -> Result<Void, any Error> in
            await previous?.value
            return await step(self)
        }
        lifecycle = Task { _ = await task.value }
        return await task.value
    }

    private func performStart() async -> Result<Void, any Error> {
        guard case .stopped = phase else { return .success(()) }
        let (configuration, monitor, io) = (configuration, monitor, io)
        do {
            phase = .running(try await io.run { () throws in try RunningDevice.open(configuration, monitor: monitor, io: io) })
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    private func performStop() async -> Result<Void, any Error> {
        guard case .running(let running) = phase else { return .success(()) }
        phase = .stopping
        while writesInFlight > 0 {
            await withCheckedContinuation { drained.append($0) }
        }
        let last = await running.shutDown()
        phase = .stopped
        monitor.statuses.yield(DeviceStatus(summary: StoreSummary(device: last.device, namespaces: last.namespaces),
                                            siblings: last.siblings, live: nil))
        monitor.emit(.stopped)
        return .success(())
    }

    /// Counts a write out; wakes a stop waiting for the writes in flight when it was the last.
    private func finishWrite() {
        writesInFlight -= 1
        guard writesInFlight == 0 else { return }
        let waiting = drained
        drained.removeAll()
        for continuation in waiting { continuation.resume() }
    }
}
