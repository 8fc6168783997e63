/// One device's convergence loop: digests out, pulls in, merges, and the guards around them.
///
/// The replica is sans-IO: the host hands it frames and the time, and drains the frames to send
/// and the events to report (`drainActions()`); it calls `tick(now:)` at `nextDeadline`. The
/// in-process `Fleet` of the SyncKernelSimulator module drives replicas on a virtual clock; a
/// network transport drives them on a real one. Not `Sendable`: each replica belongs to one
/// isolation domain.
///
/// Invariants:
/// - A local write that changes a leaf schedules one digest broadcast after the debounce; a
///   broadcast equal to the last one every sibling received is skipped.
/// - Applying a response emits the digest to that sibling at once, also when nothing changed,
///   unless the response listed leaves and a by-key follow-up request is now in flight (the
///   digest goes out when that follow-up is applied).
/// - On reaching matching roots with a sibling it was reconciling with (or that probed it), the
///   replica returns its digest exactly once.
/// - While a sibling's last digest differs from ours, the replica re-advertises to it with a
///   doubling delay, so a lost frame delays convergence but never stops it.
/// - At most one `reconcile_req` per sibling and namespace is in flight (until its response or
///   `requestTimeoutMillis`), so overlapping digests cannot multiply rounds.
/// - More than `stormRoundLimit` rounds without progress with one sibling inside the window backs off and reports
///   the divergent namespaces.
public final class Replica {
    /// The device this replica runs on.
    public let device: DeviceID
    /// The account fingerprint every frame must carry.
    public let account: [UInt8]
    /// The sibling devices of the account.
    public let siblings: [DeviceID]
    /// The device's store.
    public let store: KernelStore
    /// The loop's timings.
    public let timing: LoopTiming

    /// Reconcile rounds this replica started (a digest that diverged and sent requests).
    public private(set) var roundsStarted = 0

    private var outbox: [ReplicaAction] = []
    private var debounceDeadline: Int64?
    private var lastBroadcast: [UInt8]?
    private var peers: [DeviceID: PeerState]

    private struct PeerState {
        var lastDigestSeen: [UInt8]?
        var reconciling = false
        var awaiting: [String: Int64] = [:]
        var retryAt: Int64?
        var retryDelay: Int64
        var storm = StormGuard()
        var reportedSchemas: Set<SchemaFingerprint> = []
    }

    /// Creates a replica over `store`, pinning the store's clock to `device`.
    public init(device: DeviceID, account: [UInt8], siblings: [DeviceID], store: KernelStore,
                timing: LoopTiming = LoopTiming()) throws(SyncKernelError) {
        guard account.count == 32 else { throw SyncKernelError(.invalidDeviceIdentity, "an account fingerprint is 32 bytes") }
        try store.configureDevice(device)
        self.device = device
        self.account = account
        self.siblings = siblings.filter { $0 != device }.sorted()
        self.store = store
        self.timing = timing
        peers = Dictionary(uniqueKeysWithValues: self.siblings.map { ($0, PeerState(retryDelay: timing.retryMillis)) })
    }

    /// Frames to send and events to report since the last call.
    public func drainActions() -> [ReplicaAction] {
        defer { outbox.removeAll() }
        return outbox
    }

    /// The earliest time `tick(now:)` has work to do, if any.
    public var nextDeadline: Int64? {
        var deadlines = peers.values.compactMap(\.retryAt) + peers.values.compactMap(\.storm.backoffUntil)
        if let debounceDeadline { deadlines.append(debounceDeadline) }
        return deadlines.min()
    }

    // MARK: Local writes

    /// Runs a local write on namespace `N`; if a leaf changed, marks the state dirty.
    @discardableResult
    public func write<N: SyncNamespace>(_ namespace: N.Type, now: Int64,
                                        _ body: (NamespaceTransaction<N>) throws(SyncKernelError) -> Void) throws(SyncKernelError) -> WriteOutcome {
        let outcome = try store.write(namespace, body)
        if !outcome.changedNamespaces.isEmpty { markStateDirty(now: now) }
        return outcome
    }

    /// Schedules a debounced digest broadcast (at most one pending at a time).
    public func markStateDirty(now: Int64) {
        if debounceDeadline == nil { debounceDeadline = now + timing.debounceMillis }
    }

    /// Announces this device to its siblings (on start or reconnect); they answer with digests.
    public func announce() {
        for sibling in siblings { send(.heartbeat, to: sibling) }
    }

    // MARK: Time

    /// Runs whatever is due at `now`: the debounced broadcast, re-advertisements, ended back-offs.
    public func tick(now: Int64) {
        if let deadline = debounceDeadline, deadline <= now {
            debounceDeadline = nil
            broadcastDigest(now: now)
        }
        for sibling in siblings {
            guard var peer = peers[sibling] else { continue }
            if peer.storm.expireBackoff(at: now) {
                peer.retryAt = now
            }
            if peer.storm.isBackingOff(at: now) {
                peer.retryAt = nil
            } else if let retryAt = peer.retryAt, retryAt <= now {
                let mine = store.encodedStateDigest()
                if peer.lastDigestSeen == mine {
                    peer.retryAt = nil
                } else {
                    send(.stateDigest(digest: mine, probe: true), to: sibling)
                    peer.retryAt = now + peer.retryDelay
                    peer.retryDelay = min(peer.retryDelay * 2, timing.maxRetryMillis)
                }
            }
            peers[sibling] = peer
        }
    }

    // MARK: Frames

    /// Handles one frame from `sender`.
    public func receive(_ bytes: [UInt8], from sender: DeviceID, now: Int64) {
        guard peers[sender] != nil else {
            report(.frameRefused(from: sender, error: SyncKernelError(.unknownSibling)))
            return
        }
        let frame: SyncFrame
        do {
            frame = try SyncFrame(decoding: bytes)
        } catch {
            report(.frameRefused(from: sender, error: error))
            return
        }
        guard frame.account == account else {
            report(.frameRefused(from: sender, error: SyncKernelError(.foreignAccount)))
            return
        }
        guard frame.schema == store.namespaces.schema else {
            if peers[sender]?.reportedSchemas.insert(frame.schema).inserted == true {
                report(.peerSchemaMismatch(peer: sender, local: store.namespaces.schema, remote: frame.schema))
            }
            return
        }
        switch frame.body {
        case .heartbeat:
            send(.stateDigest(digest: store.encodedStateDigest(), probe: false), to: sender)
        case .stateDigest(let digest, let probe):
            handleDigest(digest, probe: probe, from: sender, now: now)
        case .reconcileRequest(let request):
            do {
                if let response = try store.respond(to: request) {
                    send(.reconcileResponse(response), to: sender)
                }
            } catch {
                report(.frameRefused(from: sender, error: error))
            }
        case .reconcileResponse(let response):
            handleResponse(response, from: sender, now: now)
        }
    }

    private func handleDigest(_ bytes: [UInt8], probe: Bool, from sender: DeviceID, now: Int64) {
        guard var peer = peers[sender] else { return }
        defer { peers[sender] = peer }
        let theirs: StateDigest
        do {
            theirs = try StateDigest(decoding: bytes, expecting: store.namespaces.schema, namespaces: store.namespaces.names)
        } catch {
            report(.frameRefused(from: sender, error: error))
            return
        }
        peer.lastDigestSeen = bytes
        peer.retryDelay = timing.retryMillis
        let mine = store.stateDigest()
        let divergent = mine.divergentNamespaces(from: theirs)
        guard !divergent.isEmpty else {
            if peer.reconciling || probe {
                send(.stateDigest(digest: mine.encoded(), probe: false), to: sender)
            }
            if peer.reconciling { report(.converged(peer: sender)) }
            peer.reconciling = false
            peer.awaiting.removeAll()
            peer.retryAt = nil
            return
        }
        peer.awaiting = peer.awaiting.filter { divergent.contains($0.key) && $0.value > now }
        let toPull = divergent.filter { peer.awaiting[$0] == nil }
        guard !toPull.isEmpty, !peer.storm.isBackingOff(at: now) else { return }
        if peer.storm.recordRound(at: now, timing: timing) {
            report(.stormSuspected(peer: sender, namespaces: divergent, backoffUntil: now + timing.stormBackoffMillis))
            peer.retryAt = nil
            return
        }
        for namespace in toPull {
            do {
                send(.reconcileRequest(try store.reconcileRequest(for: namespace)), to: sender)
                peer.awaiting[namespace] = now + timing.requestTimeoutMillis
            } catch {
                report(.frameRefused(from: sender, error: error))
            }
        }
        roundsStarted += 1
        peer.reconciling = true
        peer.retryAt = now + peer.retryDelay
    }

    private func handleResponse(_ response: ReconcileResponse, from sender: DeviceID, now: Int64) {
        peers[sender]?.awaiting[response.namespace] = nil
        do {
            let outcome = try store.apply(response)
            report(.applied(peer: sender, outcome: outcome))
            if outcome.digestChanged {
                peers[sender]?.storm.recordProgress()
                markStateDirty(now: now)
            }
            let wanted = try store.wantedKeys(response.listings, namespace: response.namespace)
            if !wanted.isEmpty, peers[sender]?.storm.isBackingOff(at: now) == false {
                send(.reconcileRequest(ReconcileRequest(namespace: response.namespace, buckets: [], keys: wanted)), to: sender)
                peers[sender]?.awaiting[response.namespace] = now + timing.requestTimeoutMillis
                return
            }
        } catch {
            report(.applyFailed(peer: sender, namespace: response.namespace, error: error))
        }
        guard var peer = peers[sender], !peer.storm.isBackingOff(at: now) else { return }
        let mine = store.encodedStateDigest()
        send(.stateDigest(digest: mine, probe: false), to: sender)
        if peer.lastDigestSeen == mine {
            if peer.reconciling { report(.converged(peer: sender)) }
            peer.reconciling = false
            peer.awaiting.removeAll()
            peer.retryAt = nil
        }
        peers[sender] = peer
    }

    private func broadcastDigest(now: Int64) {
        let digest = store.encodedStateDigest()
        guard digest != lastBroadcast else { return }
        lastBroadcast = digest
        for sibling in siblings {
            guard var peer = peers[sibling], !peer.storm.isBackingOff(at: now) else { continue }
            send(.stateDigest(digest: digest, probe: false), to: sibling)
            if peer.lastDigestSeen != digest, peer.retryAt == nil {
                peer.retryAt = now + peer.retryDelay
            }
            peers[sibling] = peer
        }
    }

    private func send(_ body: SyncFrame.Body, to sibling: DeviceID) {
        let frame = SyncFrame(account: account, schema: store.namespaces.schema, body: body)
        outbox.append(.send(to: sibling, kind: body.kind, frame: frame.encoded()))
    }

    private func report(_ event: ReplicaEvent) {
        outbox.append(.event(event))
    }
}
