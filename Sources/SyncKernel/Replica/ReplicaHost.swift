import SQLiteStore

/// The actor a host runs one device's convergence loop in: it owns a `Replica`, feeds it frames
/// and time, sends what it asks to send, and reports its events.
///
/// Invariants: every call into the replica is serialised by the actor; the actor runs on an
/// executor with a thread of its own (`SerialThreadExecutor`), so the store's blocking SQLite
/// work never holds a thread of the cooperative pool and a caller suspends while it runs; the
/// frames one call produces are sent in the order the replica produced them; `run()` never lets a
/// due deadline wait longer than `maxSleepMillis` (a write may schedule an earlier deadline while
/// the loop sleeps).
public actor ReplicaHost {
    /// The executor the actor runs on.
    public nonisolated let executor: SerialThreadExecutor
    private let replica: Replica
    private let transport: any FrameTransport
    private let clock: any LoopClock
    private let onEvent: @Sendable (ReplicaEvent) -> Void
    /// The longest the loop sleeps before looking at the deadlines again.
    public let maxSleepMillis: Int64
    private var storeClosed = false
    /// Whether a snapshot import is under way (`beginImport` to `endImport`).
    private var importing = false
    /// Frames that arrived during the import, in arrival order, and their bytes.
    private var held: [(frame: [UInt8], sender: DeviceID)] = []
    private var heldBytes = 0
    /// Frames dropped because the held ones reached `heldBytesLimit` during the last import.
    public private(set) var framesDroppedWhileImporting = 0
    /// The most frame bytes held during an import; a frame beyond it is dropped (the loop's
    /// re-sends and digests recover what it carried).
    public static let heldBytesLimit = 32 << 20

    /// Takes ownership of `replica`; the actor runs on `executor` (by default one of its own,
    /// whose thread is named `synckernel.replica`).
    public init(replica: sending Replica, transport: any FrameTransport, clock: any LoopClock,
                maxSleepMillis: Int64 = 100, executor: SerialThreadExecutor = SerialThreadExecutor(name: "synckernel.replica"),
                onEvent: @escaping @Sendable (ReplicaEvent) -> Void) {
        self.executor = executor
        self.replica = replica
        self.transport = transport
        self.clock = clock
        self.maxSleepMillis = maxSleepMillis
        self.onEvent = onEvent
    }

    /// The actor's executor: `executor`.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Hands a frame from `sender` to the replica, or holds it while a snapshot import is under
    /// way (`beginImport`).
    public func receive(_ frame: [UInt8], from sender: DeviceID) async {
        guard !importing else {
            guard heldBytes + frame.count <= Self.heldBytesLimit else {
                framesDroppedWhileImporting += 1
                return
            }
            held.append((frame, sender))
            heldBytes += frame.count
            return
        }
        replica.receive(frame, from: sender, now: clock.now)
        await flush()
    }

    /// Runs a local write on namespace `N`.
    @discardableResult
    public func write<N: SyncNamespace>(_ namespace: N.Type,
                                        _ body: (NamespaceTransaction<N>) throws(SyncKernelError) -> Void) async throws(SyncKernelError) -> WriteOutcome {
        let outcome = try replica.write(namespace, now: clock.now, body)
        await flush()
        return outcome
    }

    /// The current digest.
    public var stateDigest: StateDigest { replica.store.stateDigest() }

    /// The replica's state now: its store's summary, its siblings' states and its rounds.
    public var snapshot: ReplicaSnapshot {
        ReplicaSnapshot(summary: replica.store.summary(), siblings: replica.siblingStates, roundsStarted: replica.roundsStarted,
                        partsAhead: replica.partsAhead)
    }

    /// What each sibling has not seen of this device's writes to namespace `N`
    /// (`PendingChanges`); `unknownNamespace` for a namespace the replica does not sync.
    public func pendingChanges<N: SyncNamespace>(_ namespace: N.Type) throws(SyncKernelError) -> [DeviceID: PendingChanges] {
        _ = try replica.store.namespaces.driver(named: N.name)
        return replica.pendingChanges(namespace: N.name)
    }

    /// Reconcile rounds the replica started so far.
    public var roundsStarted: Int { replica.roundsStarted }

    /// Keeps what the replica wrote since it and each sibling last held equal roots
    /// (`Replica.keepPushBases`, so the next run pushes it), then closes the replica's store
    /// (every write committed so far stays; the store is unusable afterwards). The host's owner
    /// calls it last, once nothing feeds the host any more: a write, frame or tick after it
    /// fails as on a closed store. Idempotent.
    public func closeStore() {
        guard !storeClosed else { return }
        storeClosed = true
        replica.keepPushBases()
        replica.store.close()
    }

    /// Adds `device` as a sibling at runtime and announces this device to it
    /// (`Replica.addSibling`); returns whether it was new.
    @discardableResult
    public func addSibling(_ device: DeviceID) async -> Bool {
        let added = replica.addSibling(device)
        await flush()
        return added
    }

    /// Runs `body` on the replica's store inside the actor, so nothing else touches the store
    /// meanwhile; the loop waits for it, so `body` is short (a test's look at the rows).
    public func withStore<T: Sendable>(_ body: (KernelStore) -> T) -> T {
        body(replica.store)
    }

    /// Begins a snapshot import: until `endImport()`, frames from siblings are held in their
    /// order (at most `heldBytesLimit` bytes; one beyond is dropped and counted) and no timer runs,
    /// so the replica starts no round and broadcasts no digest against a store half filled;
    /// local writes, reads and the status go on between the import's transactions.
    package func beginImport() {
        importing = true
        framesDroppedWhileImporting = 0
    }

    /// Imports snapshot pages insert-if-absent in one transaction (`KernelStore.importAbsent`),
    /// between the loop's other work.
    package func importAbsent(_ pages: [ReconcileResponse],
                              shouldStop: @Sendable () -> Bool) -> Result<SnapshotImportOutcome, SyncKernelError> {
        Result { () throws(SyncKernelError) in try replica.store.importAbsent(pages, shouldStop: shouldStop) }
    }

    /// Ends the import: the frames held meanwhile reach the replica in their order (frames that
    /// arrive while they do wait behind them), then the device announces itself so its siblings
    /// compare digests with the filled store. With `handlingHeld` false (the device is stopping)
    /// the held frames are dropped instead and nothing is announced: a stop never waits for them,
    /// and the next run's announcement and digests bring what they carried.
    package func endImport(handlingHeld: Bool = true) async {
        guard handlingHeld else {
            held.removeAll()
            heldBytes = 0
            importing = false
            return
        }
        while !held.isEmpty {
            let (frame, sender) = held.removeFirst()
            heldBytes -= frame.count
            replica.receive(frame, from: sender, now: clock.now)
            await flush()
        }
        importing = false
        replica.announce()
        await flush()
    }

    /// Announces the device to its siblings (on start or reconnect).
    public func announce() async {
        replica.announce()
        await flush()
    }

    /// Runs whatever timers are due now (none while a snapshot import is under way).
    public func tick() async {
        guard !importing else { return }
        replica.tick(now: clock.now)
        await flush()
    }

    /// Runs the timers until the calling task is cancelled.
    public func run() async {
        while !Task.isCancelled {
            let now = clock.now
            // Never before now: an announcement armed while a tick flushed is due at `Int64.min`.
            let deadline = max(now, min(replica.nextDeadline ?? now + maxSleepMillis, now + maxSleepMillis))
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return
            }
            await tick()
        }
    }

    private func flush() async {
        for action in replica.drainActions() {
            switch action {
            case .send(let recipient, let kind, let frame):
                await transport.send(frame, kind: kind, to: recipient)
            case .event(let event):
                onEvent(event)
            }
        }
    }
}
