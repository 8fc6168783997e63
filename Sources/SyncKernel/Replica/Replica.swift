/// One device's convergence loop: digests out, pulls in, merges, and the guards around them.
///
/// The replica is sans-IO: the host hands it frames and the time, and drains the frames to send
/// and the events to report (`drainActions()`); it calls `tick(now:)` at `nextDeadline`. The
/// in-process `Fleet` of the SyncKernelSimulator module drives replicas on a virtual clock; a
/// network transport drives them on a real one. Not `Sendable`: each replica belongs to one
/// isolation domain.
///
/// Invariants:
/// - `announce()` repeats to each sibling with a doubling delay until that sibling shows a digest.
///   A heartbeat is answered with this replica's digest, marked `probe` while it holds no digest
///   of that sibling, so both learn at their meeting whether they are in step.
/// - A local write that changes a leaf schedules one digest broadcast after the debounce; a
///   broadcast equal to the last one every sibling received is skipped.
/// - Applying a response emits the digest to that sibling at once, also when nothing changed,
///   unless the response named keys it wants back and rows went back: the sibling applies them
///   and sends its digest, which settles the round. An answer split into parts
///   (`ReconcileResponse.remaining`) is one response: each part is merged as it comes and keeps the
///   request in flight another `requestTimeoutMillis`, and until the last part (or that timeout)
///   no digest goes to that sibling, neither after a part nor as a broadcast or re-advertisement,
///   so a large answer is shipped once, not again on every part; the digest follows the last part.
/// - A `.sketch` replica announces `SyncFrame.sketchCapability` and
///   `SyncFrame.compactCapability` on its heartbeats and digests until the sibling shows it knows
///   (it sent a set-hash digest, which it sends only to a replica that announced). It writes
///   compact frames (`SyncFrame.compactHeader`) only to a sibling that announced
///   `compactCapability` or sent a compact frame itself, so a sibling of an earlier build, spec
///   or sketch, never receives one.
/// - The host's own capabilities (`hostCapabilities`, opaque to the kernel: a transport's, say)
///   are announced with the kernel's, and what a sibling announces is reported to the host
///   (`siblingCapabilities`) whenever it differs from what it announced before, so the host
///   learns what the sibling's build reads and unlearns it when an older build comes back.
/// - A Merkle digest from a sibling that announced the capability (it did not know ours yet) is
///   answered with this replica's set-hash digest as a probe, so the pair switches to the sketch
///   exchange without either side scanning its rows. A heartbeat or Merkle digest that announces
///   it makes this replica announce its own capabilities again, so a sibling that restarted
///   learns anew that this build reads wide sketches and pushes.
/// - A local write goes to a sibling in step as a `push` (its keys' rows and delete versions, this
///   store's root of the namespace and its change counter) instead of a digest, only when the
///   sibling announced `SyncFrame.pushCapability`, no exchange with it is in flight, and every
///   namespace where its last digest differs from this store is one where this replica knows
///   every key it wrote since the two last held equal roots (at most `maxPushKeys`), or pushed
///   them all already; otherwise the digest goes. A push goes in as many parts as its rows need
///   (each within a receiver's frame and table bounds) and carries only the keys written since
///   the previous push. A push is merged as a response (uncovered keys shipped back, final) and
///   its last part acknowledged with the receiver's root (or, when that is the push's own root,
///   with the push's counter); equal roots record the marks and end the round as equal digests
///   do, unequal ones make the pusher probe with its digest (at once, or at its retry when the
///   acknowledgement says the sibling's own push follows, or a later push of its own is still on
///   its way). A lost push, part or acknowledgement leaves the re-advertisement timer set, so it
///   delays convergence only.
/// - Each sibling has one negotiated `ReconcileExchange`: the spec's (`BucketizeExchange`, Merkle
///   digests and bucketize) until the sibling's own frames show one this mode prefers (it
///   announced `SyncFrame.sketchCapability` or sent a set-hash digest), then that one for good.
///   The digests to the sibling, the first frame of each round and whether uncovered keys go back
///   come from it; a step the sibling sends is answered by whichever exchange of this mode
///   recognises it, and one that none recognises is refused as an unknown kind. The sketch
///   exchange (`SketchExchange`) sizes its first sketch by the `ChangeMarks` of the sibling (kept
///   in the store whenever they change, and read back when the replica starts, so a restart keeps
///   them). A `.spec` replica never announces the capability.
/// - On reaching matching roots with a sibling it was reconciling with (or that probed it), the
///   replica returns its digest exactly once.
/// - While a sibling's last digest differs from ours, the replica re-advertises to it with a
///   doubling delay, so a lost frame delays convergence but never stops it.
/// - At most one `reconcile_req` per sibling and namespace is in flight (until its response or
///   `requestTimeoutMillis`), so overlapping digests cannot multiply rounds.
/// - Storm guard, per sibling and namespace (`StormGuard`): a round is a request started for a
///   divergent namespace, and its pair is (our root, the sibling's root) of that namespace in the
///   digests compared. A round makes progress when its pair was not the pair of an earlier round
///   inside `stormWindowMillis`: a local write on either side or a write received from any device
///   moves a root, so writes still arriving are never a storm. A round makes none when its pair
///   was seen, rows (or delete versions) of the namespace went both ways with the sibling since
///   the previous round, and the sibling answered a request sent since the last round that
///   counted: the pair stayed (a hashed field the merge cannot converge) or came back (a merge
///   that flips a row between states) a round trip later. Any other round is neutral (it
///   overlapped a request in flight, acted on a digest older than our rows, lost a frame, pulled
///   one way only). The round that makes a namespace's rounds without progress since its last
///   progress, inside the window, exceed `stormRoundLimit` sends no request: the pair backs off
///   for `stormBackoffMillis` (the sibling's digests are recorded but start no round, no
///   broadcast, re-advertisement or post-apply digest goes to it, its requests are still
///   answered) and `stormSuspected` names exactly the namespaces over the limit; when the back-off
///   ends the guard counts afresh and the replica re-advertises.
/// - Rows the store quarantined are reported after the step that found them (those found at
///   open, from the first `drainActions()`); when a step quarantined a row, the digest moved and
///   a broadcast is scheduled, so siblings send their copies back.
public final class Replica {
    /// The device this replica runs on.
    public let device: DeviceID
    /// The account fingerprint every frame must carry.
    public let account: [UInt8]
    /// The sibling devices of the account: each once, sorted, never this device (it grows only,
    /// through `addSibling`).
    public private(set) var siblings: [DeviceID]
    /// The device's store.
    public let store: KernelStore
    /// The loop's timings.
    public let timing: LoopTiming
    /// The reconcile frames this replica speaks.
    public let mode: ReconcileMode
    /// What the host announces beside the kernel's capabilities, in the order given.
    public let hostCapabilities: [String]
    /// Whether the host's transport proves the account of every frame it hands to `receive`
    /// (a sealed envelope or session under the account's keys, as SyncDevice's): the replica
    /// then announces `SyncFrame.impliedAccountCapability`, and reads a compact frame that
    /// leaves its account tag out as this account's. False refuses such a frame (`missingField`).
    public let transportAuthenticatesAccount: Bool
    /// The most host capabilities a replica announces: what a frame carries beside the kernel's
    /// (`SyncFrame.impliedAccountCapability` included).
    public static let maxHostCapabilities = SyncFrame.maxCapabilities - SyncFrame.kernelCapabilities.count - 1
    /// The longest host capability, in UTF-8 bytes.
    public static let maxHostCapabilityBytes = 32

    /// Reconcile rounds this replica started (a digest that diverged and sent requests).
    public private(set) var roundsStarted = 0

    /// Frames this replica sent that another part of the same answer or push follows (a
    /// `reconcile_resp` or `push` with `ReconcileResponse.remaining` above zero): they go out
    /// together, not a round trip apart, so frames sent minus these counts the sequential steps.
    public private(set) var partsAhead = 0

    var outbox: [ReplicaAction] = []
    /// The store's schema and namespace names (fixed for the store's life): compact pushes and
    /// their acknowledgements name a namespace by position among them.
    package let positions: NamespacePositions
    var debounceDeadline: Int64?
    var peers: [DeviceID: PeerState]
    /// What each sibling and this replica know of each other's epochs.
    var epochLinks: [DeviceID: EpochLink] = [:]

    /// Creates a replica over `store`, pinning the store's clock to `device`; a fresh device epoch
    /// the store took on opening (restored, copied, rolled back) is reported as the first event.
    ///
    /// `siblings` is taken as a set: a sibling listed more than once is one sibling (the repeats
    /// are collapsed, never refused), and `device` itself is dropped from it, so `siblings` holds
    /// each other device once, sorted. `hostCapabilities` (announced in `.sketch` mode only) are
    /// at most `maxHostCapabilities` distinct strings of 1 to `maxHostCapabilityBytes` UTF-8
    /// bytes, none of them the kernel's own: more is `limitExceeded`, an empty, long, repeated or
    /// kernel string `invalidText`. `transportAuthenticatesAccount` says the host's transport
    /// proves every frame's account (see the property).
    public init(device: DeviceID, account: [UInt8], siblings: [DeviceID], store: KernelStore,
                timing: LoopTiming = LoopTiming(), mode: ReconcileMode = .sketch,
                hostCapabilities: [String] = [], transportAuthenticatesAccount: Bool = false) throws(SyncKernelError) {
        guard account.count == 32 else { throw SyncKernelError(.invalidDeviceIdentity, "an account fingerprint is 32 bytes") }
        guard hostCapabilities.count <= Replica.maxHostCapabilities else {
            throw SyncKernelError(.limitExceeded, "more host capabilities than a frame carries")
        }
        guard Set(hostCapabilities).count == hostCapabilities.count,
              hostCapabilities.allSatisfy({ (1...Replica.maxHostCapabilityBytes).contains($0.utf8.count) }),
              Set(hostCapabilities).isDisjoint(with: SyncFrame.kernelCapabilities + [SyncFrame.impliedAccountCapability]) else {
            throw SyncKernelError(.invalidText, "a host capability empty, too long, repeated or the kernel's")
        }
        self.hostCapabilities = hostCapabilities
        self.transportAuthenticatesAccount = transportAuthenticatesAccount
        try store.configureDevice(device)
        self.device = device
        self.account = account
        self.siblings = Set(siblings).subtracting([device]).sorted()
        self.store = store
        positions = NamespacePositions(schema: store.namespaces.schema, names: store.namespaces.names)
        self.timing = timing
        self.mode = mode
        // Unique keys: `self.siblings` comes from a set.
        peers = Dictionary(uniqueKeysWithValues: self.siblings.map { ($0, PeerState(exchange: mode.fallbackExchange, announceDelay: timing.retryMillis, retryDelay: timing.retryMillis)) })
        for sibling in self.siblings { peers[sibling]?.marks = keptMarks(of: sibling) }
        takeKeptPushBases()
        for change in store.epochChanges {
            report(.storeRolledBack(reason: change.reason, epoch: change.epoch.number, peer: nil))
        }
        reportQuarantined(now: nil)
    }

    /// Reports the rows the store quarantined since the last step; with `now`, schedules a
    /// digest broadcast, since their items left the digest.
    func reportQuarantined(now: Int64?) {
        let quarantined = store.takeNewlyQuarantined()
        guard !quarantined.isEmpty else { return }
        report(.rowsQuarantined(quarantined))
        if let now { markStateDirty(now: now) }
    }

    /// Frames to send and events to report since the last call.
    public func drainActions() -> [ReplicaAction] {
        defer { outbox.removeAll() }
        return outbox
    }

    /// The earliest time `tick(now:)` has work to do, if any.
    public var nextDeadline: Int64? {
        var deadlines = peers.values.compactMap(\.retryAt) + peers.values.compactMap(\.storm.backoffUntil)
            + peers.values.compactMap(\.announceAt)
        if let debounceDeadline { deadlines.append(debounceDeadline) }
        return deadlines.min()
    }

    // MARK: Local writes

    /// Runs a local write on namespace `N`; if a leaf changed, marks the state dirty.
    @discardableResult
    public func write<N: SyncNamespace>(_ namespace: N.Type, now: Int64,
                                        _ body: (NamespaceTransaction<N>) throws(SyncKernelError) -> Void) throws(SyncKernelError) -> WriteOutcome {
        defer { reportQuarantined(now: now) }
        let outcome = try store.write(namespace, body)
        if !outcome.changedNamespaces.isEmpty { markStateDirty(now: now) }
        for sibling in siblings {
            guard var peer = peers[sibling] else { continue }
            for name in outcome.changedNamespaces {
                guard let written = peer.writtenSinceEqual[name], let moved = outcome.movedKeys[name] else {
                    peer.writtenSinceEqual[name] = nil
                    continue
                }
                let union = written.union(moved)
                peer.writtenSinceEqual[name] = union.count <= pushKeyLimit ? union : nil
            }
            peers[sibling] = peer
        }
        for (name, keys) in outcome.resolvedConflicts.sorted(by: { $0.key < $1.key }) {
            for key in keys { report(.conflictResolved(namespace: name, key: key)) }
        }
        return outcome
    }

    /// Schedules a debounced digest broadcast (at most one pending at a time).
    public func markStateDirty(now: Int64) {
        if debounceDeadline == nil { debounceDeadline = now + timing.debounceMillis }
    }

    /// Adds `device` as a sibling at runtime (one the host's envelope gate learned from a valid
    /// certificate of this account) and announces this device to it; returns whether it was new
    /// (this device and a sibling already known change nothing).
    @discardableResult
    public func addSibling(_ device: DeviceID) -> Bool {
        guard device != self.device, peers[device] == nil else { return false }
        siblings = (siblings + [device]).sorted()
        peers[device] = PeerState(exchange: mode.fallbackExchange, announceDelay: timing.retryMillis, retryDelay: timing.retryMillis)
        peers[device]?.marks = keptMarks(of: device)
        send(.heartbeat, to: device)
        peers[device]?.announceAt = .min
        return true
    }

    /// Announces this device to its siblings (on start or reconnect); they answer with digests.
    /// A sibling that shows no digest within `LoopTiming.retryMillis` is announced to again, with
    /// a doubling delay (up to `maxRetryMillis`), until it does: a lost heartbeat or a lost answer
    /// cannot leave a restarted device, which may hold writes it never advertised, unheard.
    public func announce() {
        for sibling in siblings {
            // Announcing follows a start or a reconnect: pushes sent before may never have left.
            if var peer = peers[sibling] {
                takePushesAsLost(&peer)
                peers[sibling] = peer
            }
            send(.heartbeat, to: sibling)
            peers[sibling]?.announceAt = .min
            peers[sibling]?.announceDelay = timing.retryMillis
        }
    }

    // MARK: Time

    /// Runs whatever is due at `now`: the debounced broadcast, re-advertisements, ended back-offs.
    public func tick(now: Int64) {
        defer { reportQuarantined(now: now) }
        if let deadline = debounceDeadline, deadline <= now {
            debounceDeadline = nil
            broadcastDigest(now: now)
        }
        for sibling in siblings {
            guard var peer = peers[sibling] else { continue }
            if peer.storm.expireBackoff(at: now) {
                peer.retryAt = now
            }
            if let announceAt = peer.announceAt, announceAt <= now {
                if let backoffUntil = peer.storm.backoffUntil, now < backoffUntil {
                    peer.announceAt = backoffUntil
                } else if announceAt != .min, let until = peer.receivingUntil, now < until {
                    // Parts of a push or an answer from the sibling are arriving: a heartbeat now
                    // would cross them (and a sibling that heard the last one answer it again); the
                    // announcement goes on once the parts end.
                    peer.announceAt = until
                } else {
                    if announceAt != .min {
                        send(.heartbeat, to: sibling)
                        peer.announceDelay = min(peer.announceDelay * 2, timing.maxRetryMillis)
                    } else if peer.pushesAtAnnouncement {
                        pushKept(to: sibling, peer: &peer, now: now)
                    }
                    peer.announceAt = now + peer.announceDelay
                }
            }
            if peer.storm.isBackingOff(at: now) {
                peer.retryAt = nil
            } else if let retryAt = peer.retryAt, retryAt <= now, let until = peer.receivingUntil, now < until {
                peer.retryAt = until
            } else if let retryAt = peer.retryAt, retryAt <= now, let mine = digest(for: peer) {
                // Pushes not acknowledged by now are taken as lost: the digest settles what they carried.
                takePushesAsLost(&peer)
                if peer.lastDigestSeen == mine {
                    noteInStep(&peer)
                    peer.retryAt = nil
                } else {
                    send(digestBody(mine, probe: true, for: peer), to: sibling)
                    peer.retryAt = now + peer.retryDelay
                    peer.retryDelay = min(peer.retryDelay * 2, timing.maxRetryMillis)
                }
            }
            peers[sibling] = peer
        }
    }

    // MARK: Frames

    /// Handles one frame from `sender`: a frame naming another account than `account` is
    /// refused (`foreignAccount`) before its schema, kind or body are read.
    ///
    /// Over a sealed relay the host runs the envelope gate first (SyncEnvelope's `EnvelopeGate`):
    /// `sender` is then the device its issuer-signed certificate names and `account` is the
    /// account's userIDHash the gate checked that certificate against, so a frame reaches this
    /// method only from a verified sibling of this account, and its own `account` field must
    /// name that same account.
    public func receive(_ bytes: [UInt8], from sender: DeviceID, now: Int64) {
        defer { reportQuarantined(now: now) }
        guard peers[sender] != nil else {
            report(.frameRefused(from: sender, error: SyncKernelError(.unknownSibling)))
            return
        }
        let frame: SyncFrame
        let heldEpochs = epochLinks[sender]?.epochs ?? []
        do {
            frame = try SyncFrame(decoding: bytes, account: account, sender: sender, positions: positions, receiver: device,
                                  senderEpoch: heldEpochs.count == 1 ? heldEpochs.first : nil,
                                  impliedAccount: transportAuthenticatesAccount)
        } catch {
            report(.frameRefused(from: sender, error: error))
            return
        }
        guard frame.schema == store.namespaces.schema else {
            if peers[sender]?.reportedSchemas.insert(frame.schema).inserted == true {
                report(.peerSchemaMismatch(peer: sender, local: store.namespaces.schema, remote: frame.schema))
            }
            return
        }
        if let announced = mode.exchange(announcedIn: frame.capabilities), var peer = peers[sender] {
            negotiate(announced, with: &peer)
            peers[sender] = peer
        }
        if mode == .sketch, frame.compactHeader || frame.capabilities.contains(SyncFrame.compactCapability) {
            peers[sender]?.readsCompact = true
        }
        if mode == .sketch, frame.capabilities.contains(SyncFrame.sketchCapability) {
            let announced = Set(frame.capabilities).sorted()
            if peers[sender] != nil, peers[sender]?.announced != announced {
                peers[sender]?.announced = announced
                report(.siblingCapabilities(peer: sender, capabilities: announced))
            }
            peers[sender]?.readsWide = frame.capabilities.contains(SyncFrame.wideCapability)
            peers[sender]?.readsPush = frame.capabilities.contains(SyncFrame.pushCapability)
            peers[sender]?.readsLean = frame.capabilities.contains(SyncFrame.leanCapability)
            peers[sender]?.readsImpliedAccount = frame.capabilities.contains(SyncFrame.impliedAccountCapability)
            // A heartbeat or a Merkle digest that announces the sketch exchange comes from a
            // sibling that does not know what this replica reads (it restarted): announce back,
            // so it learns this build's capabilities (`wideCapability`, `pushCapability`) anew;
            // its next set-hash digest ends that.
            let announcing = switch frame.body {
            case .heartbeat: true
            case .stateDigest(let digest, _, _): StateDigest.claimedLayout(of: digest) == .merkle
            default: false
            }
            // The sibling started or reconnected: what was pushed to it before may be lost, so its
            // digests start exchanges again; a heartbeat that repeats the announcement the pushes
            // on their way answered leaves them in flight (`heartbeatPushes`).
            if announcing, var peer = peers[sender] {
                peer.knowsOurCapability = false
                let repeated = if case .heartbeat = frame.body { peer.answeringHeartbeat(at: now) } else { false }
                if !repeated { takePushesAsLost(&peer) }
                epochLinks[sender] = nil
                peers[sender] = peer
            }
        }
        if mode == .sketch { takeEpochForms(of: frame, from: sender) }
        switch frame.body {
        case .heartbeat:
            // The sibling started or reconnected: what this device wrote since the two last held
            // equal roots goes first as pushes (the ones lost meanwhile included), then the
            // digest. A sibling this replica has no digest of yet is asked for one with it, so
            // both sides learn at the meeting whether they are in step (and can push).
            guard var peer = peers[sender], let mine = digest(for: peer) else { return }
            if !peer.answeringHeartbeat(at: now), let pushes = pushes(to: peer, now: now) {
                sendPushes(pushes, to: sender, peer: &peer, now: now)
                peer.heartbeatPushes = (at: now, until: max(peer.retryAt ?? now, now + 2 * timing.retryMillis))
            }
            peers[sender] = peer
            send(digestBody(mine, probe: peer.lastDigestSeen == nil, for: peer), to: sender)
        case .stateDigest(let digest, let probe, let changes):
            let answersAnnouncement = peers[sender]?.announceAt != nil
            peers[sender]?.announceAt = nil
            handleDigest(digest, probe: probe, changes: changes, from: sender, now: now, answersAnnouncement: answersAnnouncement)
        case .reconcileRequest, .sketch, .rangeCompare:
            answerStep(frame.body, from: sender, now: now)
        case .reconcileResponse(let response):
            handleResponse(response, from: sender, now: now)
        case .push(let response, let root, let change):
            guard mode == .sketch else { return refuseUnknownKind(from: sender) }
            handlePush(response, root: root, change: change, from: sender, now: now)
        case .pushAck(let namespace, let answer, let change, let following):
            guard mode == .sketch else { return refuseUnknownKind(from: sender) }
            handlePushAck(namespace: namespace, answer: answer, change: change, following: following, from: sender, now: now)
        }
    }

    /// Answers a step of an exchange through the one of this mode that recognises it (a body
    /// none recognises is refused as an unknown kind); a step that answers this device's own
    /// ends the wait for its namespace first.
    func answerStep(_ body: SyncFrame.Body, from sender: DeviceID, now: Int64) {
        guard let (exchange, step) = mode.exchanges.lazy.compactMap({ exchange in exchange.step(of: body).map { (exchange, $0) } }).first,
              let peer = peers[sender] else {
            return refuseUnknownKind(from: sender)
        }
        if step.answersRound { peers[sender]?.awaiting[step.namespace] = nil }
        let context = exchangePeer(peer)
        answer(from: sender, namespace: step.namespace, now: now) { () throws(SyncKernelError) in
            try exchange.answer(body, in: store, with: context)
        }
    }

    /// What the exchanges may read of the sibling whose state is `peer`.
    func exchangePeer(_ peer: PeerState) -> ExchangePeer {
        ExchangePeer(marks: peer.marks, readsWide: peer.readsWide)
    }

    /// Takes `exchange`, which the sibling's frames showed it speaks, as the one to use with it
    /// when this mode prefers it to the one negotiated so far; never goes back to a less
    /// preferred one (a frame of an older layout from a sibling known to speak a newer one is
    /// answered in the newer one).
    func negotiate(_ exchange: any ReconcileExchange, with peer: inout PeerState) {
        if mode.rank(of: exchange) < mode.rank(of: peer.exchange) { peer.exchange = exchange }
    }

    /// Sends the frames `make` builds for a sibling's request, or reports why it could not. A
    /// response that ships rows is a push, noted until the sibling's next digest (after a ship-back
    /// the sibling's digest, sent once it applied the rows, settles the round) and by the storm
    /// guard (rows went to the sibling); a request sent on as the next step of the exchange is
    /// noted by the guard too, which matches the sibling's answers to it.
    func answer(from sender: DeviceID, namespace: String, now: Int64,
                        _ make: () throws(SyncKernelError) -> [SyncFrame.Body]) {
        do {
            for body in try make() {
                switch body {
                case .reconcileResponse(let response) where !response.rows.isEmpty || !response.tombstones.isEmpty:
                    peers[sender]?.pushedSinceDigest = true
                    peers[sender]?.storm.recordShipped(response.namespace)
                case .sketch(let request):
                    peers[sender]?.storm.recordRequest(request.namespace, at: now, timing: timing)
                case .rangeCompare(let compare):
                    peers[sender]?.storm.recordRequest(compare.namespace, at: now, timing: timing)
                case .reconcileRequest(let request):
                    peers[sender]?.storm.recordRequest(request.namespace, at: now, timing: timing)
                default:
                    break
                }
                send(body, to: sender)
            }
        } catch {
            report(.frameRefused(from: sender, error: error))
        }
    }

    /// What a spec-only build does with a frame kind it does not know.
    func refuseUnknownKind(from sender: DeviceID) {
        report(.frameRefused(from: sender, error: SyncKernelError(.unknownFrameKind)))
    }

    /// This store's digest in the layout `peer` reads (nil, reported, if the scan a spec digest
    /// needs fails).
    func digest(for peer: PeerState) -> [UInt8]? {
        do {
            return try peer.exchange.encodedDigest(of: store)
        } catch {
            report(.storeFailed(error: error))
            return nil
        }
    }

    /// A `state_digest` body for `peer`: with the change counters when it reads set-hash digests.
    func digestBody(_ digest: [UInt8], probe: Bool, for peer: PeerState) -> SyncFrame.Body {
        let changes = StateDigest.claimedLayout(of: digest) == .setHash ? store.changeCounters() : []
        return .stateDigest(digest: digest, probe: probe, changes: changes)
    }

    /// Compares a sibling's digest with this store's and starts an exchange for each namespace
    /// that differs, unless this device's push of it is on its way; a digest that answers this
    /// device's announcement (`answersAnnouncement`: it started or reconnected) is answered with
    /// pushes of what this device wrote since the two last held equal roots, where it knows that,
    /// instead of an exchange (the acknowledgement settles whether the sibling then agrees).
    func handleDigest(_ bytes: [UInt8], probe: Bool, changes: [UInt64], from sender: DeviceID, now: Int64,
                              answersAnnouncement: Bool = false) {
        guard var peer = peers[sender] else { return }
        defer { peers[sender] = peer }
        let theirs: StateDigest
        let mine: StateDigest
        do throws(SyncKernelError) {
            theirs = try StateDigest(decoding: bytes, expecting: store.namespaces.schema, namespaces: store.namespaces.names)
            guard let shown = mode.exchange(comparing: theirs.layout) else { throw SyncKernelError(.unsupportedLayout) }
            negotiate(shown, with: &peer)
            // A digest in a layout that needs a capability went only to a replica that announced it.
            if shown.capability != nil { peer.knowsOurCapability = true }
            guard shown.layout == peer.exchange.layout else {
                // The sibling does not know yet that this device speaks the exchange it announced:
                // answer in that one's layout as a probe, so the pair switches without a scan.
                let own = try peer.exchange.encodedDigest(of: store)
                peer.lastDigestSeen = bytes
                peer.lastBroadcast = own
                send(digestBody(own, probe: true, for: peer), to: sender)
                return
            }
            mine = try peer.exchange.digest(of: store)
        } catch {
            report(.frameRefused(from: sender, error: error))
            return
        }
        peer.pushedSinceDigest = false
        peer.lastDigestSeen = bytes
        peer.retryDelay = timing.retryMillis
        let divergent = mine.divergentNamespaces(from: theirs)
        let names = store.namespaces.names
        let counters = store.changeCounters()
        if peer.exchange.countsChanges {
            let kept = peer.marks
            peer.marks.forgetRolledBack(names: names, theirs: changes)
            peer.marks.record(equal: names.filter { !divergent.contains($0) }, names: names, mine: counters, theirs: changes)
            if peer.marks != kept { keep(peer.marks, of: sender) }
            for name in names where !divergent.contains(name) { peer.writtenSinceEqual[name] = [] }
        }
        guard !divergent.isEmpty else {
            if peer.reconciling || probe {
                peer.lastBroadcast = mine.encoded()
                send(digestBody(mine.encoded(), probe: false, for: peer), to: sender)
            }
            endRound(&peer, with: sender)
            return
        }
        peer.awaiting = peer.awaiting.filter { divergent.contains($0.key) && $0.value > now }
        // A namespace this device's push to the sibling is still on its way in differs because
        // the sibling has not taken in all of it: the push's acknowledgement settles it, or the
        // retry (which forgets the pushes in flight) starts the exchange.
        var toPull = divergent.filter { peer.awaiting[$0] == nil && peer.pushesInFlight[$0]?.isEmpty != false }
        if answersAnnouncement, theirs.layout == .setHash, peer.readsPush, !peer.storm.isBackingOff(at: now) {
            let pushing = toPull.filter { pushable($0, for: peer) }
            if !pushing.isEmpty, let pushes = pushBodies(for: pushing, of: peer, mine: mine, counters: counters) {
                sendPushes(pushes, to: sender, peer: &peer, now: now)
                toPull.removeAll { pushing.contains($0) }
            }
        }
        guard !toPull.isEmpty, !peer.storm.isBackingOff(at: now) else { return }
        let storming = peer.storm.recordRound(at: now, namespaces: toPull, mine: mine, theirs: theirs, timing: timing)
        guard storming.isEmpty else {
            report(.stormSuspected(peer: sender, namespaces: storming, backoffUntil: now + timing.stormBackoffMillis))
            peer.retryAt = nil
            return
        }
        for namespace in toPull {
            do {
                let round = ExchangeRound(namespace: namespace, theirs: theirs, theirChanges: changes, counters: counters)
                send(try peer.exchange.start(round, in: store, with: exchangePeer(peer)), to: sender)
                peer.awaiting[namespace] = now + timing.requestTimeoutMillis
            } catch {
                report(.frameRefused(from: sender, error: error))
            }
        }
        roundsStarted += 1
        peer.reconciling = true
        peer.retryAt = now + peer.retryDelay
    }

    func handleResponse(_ response: ReconcileResponse, from sender: DeviceID, now: Int64) {
        let more = response.remaining > 0
        peers[sender]?.awaiting[response.namespace] = more ? now + timing.requestTimeoutMillis : nil
        peers[sender]?.receivingUntil = more ? now + timing.requestTimeoutMillis : nil
        if store.namespaces.names.contains(response.namespace) {
            if !response.rows.isEmpty || !response.tombstones.isEmpty { peers[sender]?.storm.recordReceived(response.namespace) }
            if !response.isFinal, !more { peers[sender]?.storm.recordAnswer(response.namespace, at: now, timing: timing) }
        }
        var shipBack: [[UInt8]] = []
        if let outcome = applyReporting(response, from: sender, now: now) {
            if peers[sender]?.exchange.shipsBack == true, !response.isFinal { shipBack = outcome.keysToShipBack }
            if response.isFinal, !outcome.keysToShipBack.isEmpty, var marks = peers[sender]?.marks {
                marks.forget(response.namespace)
                peers[sender]?.marks = marks
                keep(marks, of: sender)
            }
        }
        if !shipBack.isEmpty {
            answer(from: sender, namespace: response.namespace, now: now) { () throws(SyncKernelError) in
                try store.respond(toKeys: shipBack, namespace: response.namespace, isFinal: true).map { .reconcileResponse($0) }
            }
            if peers[sender]?.pushedSinceDigest == true { return }
        }
        guard !more, var peer = peers[sender], !peer.storm.isBackingOff(at: now), let mine = digest(for: peer) else { return }
        peer.lastBroadcast = mine
        send(digestBody(mine, probe: false, for: peer), to: sender)
        if peer.lastDigestSeen == mine {
            noteInStep(&peer)
            endRound(&peer, with: sender)
        }
        peers[sender] = peer
    }

    /// Applies `response` from `sender` and reports what it did (conflicts, collisions, refused
    /// operations, an epoch change); schedules a broadcast when the digest moved. Nil, reported,
    /// when the store refused it.
    func applyReporting(_ response: ReconcileResponse, from sender: DeviceID, now: Int64) -> ApplyOutcome? {
        do {
            let outcome = try store.apply(response, from: sender)
            report(.applied(peer: sender, outcome: outcome))
            if let change = outcome.epochChange {
                report(.storeRolledBack(reason: change.reason, epoch: change.epoch.number, peer: sender))
            }
            if !outcome.collidedKeys.isEmpty {
                report(.versionsCollided(peer: sender, namespace: outcome.namespace, keys: outcome.collidedKeys))
            }
            reportConflicts(outcome)
            if outcome.refusedOperations > 0 {
                report(.operationsRefused(peer: sender, namespace: outcome.namespace, count: outcome.refusedOperations))
            }
            for conflict in outcome.backfillConflicts {
                report(.backfillConflict(peer: sender, namespace: outcome.namespace, key: conflict.key, fields: conflict.fields))
            }
            if outcome.digestChanged {
                markStateDirty(now: now)
            }
            return outcome
        } catch {
            report(.applyFailed(peer: sender, namespace: response.namespace, error: error))
            return nil
        }
    }

    /// The most keys of one namespace this replica pushes (`maxPushKeys` unless a test lowers it
    /// to reach the limit with few rows); past it the change goes out as a digest.
    package var pushKeyLimit = Replica.maxPushKeys

    /// Ends the round with `sender` at matching roots: reported as converged when one was under
    /// way, nothing left awaited, no re-advertisement due.
    func endRound(_ peer: inout PeerState, with sender: DeviceID) {
        if peer.reconciling { report(.converged(peer: sender)) }
        peer.reconciling = false
        peer.awaiting.removeAll()
        peer.retryAt = nil
    }

    /// Notes that this store equals the sibling's last digest in every namespace: nothing was
    /// written here since, so each namespace's next writes can go out as a push.
    func noteInStep(_ peer: inout PeerState) {
        for name in store.namespaces.names { peer.writtenSinceEqual[name] = [] }
    }

    /// What this replica knows it wrote since it and `sibling` last held equal roots and has not
    /// pushed, by namespace (empty for a device that is not a sibling).
    package func writtenSinceEqual(of sibling: DeviceID) -> [String: Set<[UInt8]>] {
        peers[sibling]?.writtenSinceEqual ?? [:]
    }

    /// What each sibling has not seen of this device's writes to `namespace`: the keys written
    /// since the two last held equal roots, those pushed and not acknowledged included, or
    /// `unknown` (`PendingChanges`).
    package func pendingChanges(namespace: String) -> [DeviceID: PendingChanges] {
        peers.mapValues { peer in
            guard let written = peer.writtenSinceEqual[namespace] else { return .unknown }
            return .keys(written.union((peer.pushesInFlight[namespace] ?? []).flatMap(\.keys)))
        }
    }

    /// The change marks this replica holds of `sibling` (nil for a device that is not one).
    package func changeMarks(of sibling: DeviceID) -> ChangeMarks? {
        peers[sibling]?.marks
    }

    /// The marks the store kept of `sibling` (none, reported, when they cannot be read).
    func keptMarks(of sibling: DeviceID) -> ChangeMarks {
        do {
            return try store.changeMarks(with: sibling)
        } catch {
            report(.storeFailed(error: error))
            return ChangeMarks()
        }
    }

    /// Keeps `marks` of `sibling` in the store; a failure is reported and the marks stay in memory.
    func keep(_ marks: ChangeMarks, of sibling: DeviceID) {
        do {
            try store.storeChangeMarks(marks, with: sibling)
        } catch {
            report(.storeFailed(error: error))
        }
    }

    func broadcastDigest(now: Int64) {
        for sibling in siblings {
            guard var peer = peers[sibling], !peer.storm.isBackingOff(at: now), peer.receivingUntil.map({ now >= $0 }) ?? true,
                  let digest = digest(for: peer), digest != peer.lastBroadcast else { continue }
            // The sibling's last digest is this state, and this device's acknowledgement with equal
            // roots already went after it or crossed it: nothing to tell.
            if peer.acknowledgedInStep, peer.lastDigestSeen == digest {
                peers[sibling]?.lastBroadcast = digest
                continue
            }
            if let pushes = pushes(to: peer, now: now) {
                sendPushes(pushes, to: sibling, peer: &peer, now: now)
                peer.lastBroadcast = digest
                peers[sibling] = peer
                continue
            }
            peer.lastBroadcast = digest
            send(digestBody(digest, probe: false, for: peer), to: sibling)
            if peer.lastDigestSeen != digest, peer.retryAt == nil {
                peer.retryAt = now + peer.retryDelay
            }
            peers[sibling] = peer
        }
    }

    /// Sends `body` to `sibling` in the form it reads (compact vectors and header once it said
    /// so); `compact` forces the compact form (pushes of what was kept at a stop, to a sibling
    /// that read them then: one that no longer does refuses them, and the retry's digest settles
    /// it), with no effect on what later frames assume.
    func send(_ body: SyncFrame.Body, to sibling: DeviceID, compact forced: Bool = false) {
        peers[sibling]?.acknowledgedInStep = if case .pushAck(_, .matched, _, false) = body { true } else { false }
        switch body {
        case .stateDigest(let digest, _, _): peers[sibling]?.lastBroadcast = digest
        case .reconcileResponse(let response) where response.remaining > 0: partsAhead += 1
        case .push(let response, _, _) where response.remaining > 0: partsAhead += 1
        default: break
        }
        let announces = switch body {
        case .stateDigest, .heartbeat: true
        default: false
        }
        let capabilities = mode == .sketch && announces && peers[sibling]?.knowsOurCapability != true
            ? SyncFrame.kernelCapabilities + (transportAuthenticatesAccount ? [SyncFrame.impliedAccountCapability] : []) + hostCapabilities
            : []
        let compact = mode == .sketch && (forced || peers[sibling]?.exchange.compactVectors == true)
        let compactHeader = mode == .sketch && (forced || peers[sibling]?.readsCompact == true)
        let lean = compactHeader && peers[sibling]?.readsLean == true ? leanForms(to: sibling, body: body) : nil
        let frame = SyncFrame(account: account, schema: store.namespaces.schema, body: body, capabilities: capabilities,
                              compactVectors: compact, compactHeader: compactHeader, sender: device, positions: positions, receiver: sibling,
                              epochAnnouncement: lean?.announcement, epochEcho: lean?.echo, senderEpoch: lean?.senderEpoch,
                              deltaDimension: lean?.delta, omitsAccount: compactHeader && peers[sibling]?.readsImpliedAccount == true)
        outbox.append(.send(to: sibling, kind: body.kind, frame: frame.encoded()))
    }

    /// The lean forms of a frame to `sibling`, which reads `SyncFrame.leanCapability`.
    ///
    /// This store's epoch (when above 0) is announced on heartbeats and digests until the sibling
    /// echoes it, and on a push when no frame announced it since the sibling last started; a
    /// push then names it by `DeviceTable.epochIndex` and writes delta rows over the store's write
    /// dimension. A push does not wait for the echo: a sibling that did not get the announcement
    /// leaves the rows that name it unmerged and echoes empty, and this store announces again. The
    /// echo due to the sibling rides on a heartbeat or digest, an empty one on any frame.
    private func leanForms(to sibling: DeviceID, body: SyncFrame.Body)
        -> (announcement: EpochAnnouncement?, echo: [UInt8]?, senderEpoch: DeviceID?, delta: DeviceID?) {
        var link = epochLinks[sibling] ?? EpochLink()
        let epoch = store.deviceEpoch
        let current = epoch?.dimension
        let (periodic, push) = switch body {
        case .heartbeat, .stateDigest: (true, false)
        case .push: (false, true)
        default: (false, false)
        }
        var announcement: EpochAnnouncement?
        if let epoch, link.echoed != current, periodic || (push && link.announced != current) {
            announcement = EpochAnnouncement(epoch)
        }
        if announcement != nil { link.announced = current }
        var echo: [UInt8]?
        if let due = link.echoDue, periodic || due.isEmpty {
            echo = due
            link.echoDue = nil
        }
        epochLinks[sibling] = link
        guard push, let epoch else { return (announcement, echo, nil, nil) }
        return (announcement, echo, epoch.number > 0 ? epoch.dimension : nil, epoch.dimension)
    }

    func report(_ event: ReplicaEvent) {
        outbox.append(.event(event))
    }

    /// Reports the conflicts a merge opened (with the versions the store now holds) and resolved.
    func reportConflicts(_ outcome: ApplyOutcome) {
        for key in outcome.conflictsOpened {
            do {
                report(.concurrentEdit(namespace: outcome.namespace, key: key,
                                       versions: try store.conflictVersions(namespace: outcome.namespace, key: key)))
            } catch {
                report(.storeFailed(error: error))
            }
        }
        for key in outcome.conflictsResolved { report(.conflictResolved(namespace: outcome.namespace, key: key)) }
    }

    // MARK: Observation

    /// What the replica knows of each sibling now, in `siblings` order. Reading it sends nothing
    /// and reports nothing; with a sibling that reads only the spec's digests it may scan the
    /// store for the Merkle roots (cached until the items move), and a scan that fails counts as
    /// not in sync.
    public var siblingStates: [SiblingState] {
        siblings.map { sibling in
            let peer = peers[sibling]
            let seen = peer?.lastDigestSeen
            var inSync = false
            if let peer, let seen {
                inSync = (try? peer.exchange.encodedDigest(of: store)) == seen
            }
            return SiblingState(device: sibling, hasShownDigest: seen != nil, inSync: inSync,
                                reconciling: peer?.reconciling ?? false, backoffUntil: peer?.storm.backoffUntil)
        }
    }
}
