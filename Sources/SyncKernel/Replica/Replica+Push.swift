/// Pushes: a local write sent to a sibling in step as its keys' rows, acknowledged with the
/// receiver's root, instead of a digest and an exchange.
///
/// Invariant: a push goes only to a sibling that announced `SyncFrame.pushCapability` and whose
/// negotiated exchange compares set-hash digests; every push is either acknowledged, or taken as
/// lost (its keys back to `writtenSinceEqual`) when the sibling restarts or its retry comes due,
/// so a lost push delays convergence and never stops it.
extension Replica {

    /// The most keys of one namespace a push carries: past it (`RowWriter.movedKeyLimit` keys
    /// of one write, or writes adding up to more between equal roots) the change goes out as a
    /// digest and the sketch exchange finds it. A push of more rows than one frame holds goes in
    /// parts (`ReconcileResponse.split()`), each within the frame and table bounds a receiver of
    /// this build reads.
    package static let maxPushKeys = RowWriter.movedKeyLimit

    /// The most unacknowledged pushes a replica remembers per sibling and namespace (the oldest
    /// is forgotten first; an acknowledgement matching a forgotten push is taken as unknown and
    /// the digest settles it).
    package static let pushesKept = 8

    /// The pushes that replace a digest broadcast to `peer`, or nil when a digest must go.
    ///
    /// A push goes only to a sibling that reads it (`SyncFrame.pushCapability`, set-hash
    /// digests), with no exchange in flight with it, whose last digest differs from this
    /// store's in namespaces where every difference may be this device's own writes since the two
    /// last held equal roots (`writtenSinceEqual` known, not empty, of a per-key namespace), each
    /// answer not empty, or where every such write went out in a push not yet acknowledged (the
    /// namespace is then skipped: that push covers it). One push per namespace to push
    /// (`pushBodies`): the keys written since the last push (or since the equal roots).
    func pushes(to peer: PeerState, now: Int64) -> [SyncFrame.Body]? {
        guard peer.exchange.layout == .setHash, peer.readsPush, !peer.reconciling, peer.awaiting.isEmpty,
              peer.receivingUntil.map({ now >= $0 }) ?? true, let seen = peer.lastDigestSeen, StateDigest.claimedLayout(of: seen) == .setHash,
              let theirs = try? StateDigest(decoding: seen, expecting: store.namespaces.schema, namespaces: store.namespaces.names)
        else { return nil }
        let mine = store.stateDigest()
        let counters = store.changeCounters()
        let divergent = mine.divergentNamespaces(from: theirs)
        guard !divergent.isEmpty else { return nil }
        var toPush: [String] = []
        for namespace in divergent {
            // Written since and all of it pushed already: the push on its way covers the namespace.
            if peer.writtenSinceEqual[namespace]?.isEmpty == true, peer.pushesInFlight[namespace]?.isEmpty == false { continue }
            guard pushable(namespace, for: peer) else { return nil }
            toPush.append(namespace)
        }
        return pushBodies(for: toPush, of: peer, mine: mine, counters: counters)
    }

    /// Whether `namespace` can go to `peer` as a push: this device knows what it wrote since the
    /// two last held equal roots and wrote something, and the namespace reconciles by key.
    func pushable(_ namespace: String, for peer: PeerState) -> Bool {
        guard let keys = peer.writtenSinceEqual[namespace], !keys.isEmpty else { return false }
        return (try? store.namespaces.driver(named: namespace))?.granularity != .wholeNamespace
    }

    /// The pushes of `namespaces` (each `pushable`): per namespace, in as many parts as its rows
    /// need, the rows and delete versions of the keys written, with this store's root of it
    /// after them (`mine`) and its change counter on every part. Nil when one has nothing to
    /// ship or the store fails (reported): a digest goes instead.
    func pushBodies(for namespaces: [String], of peer: PeerState, mine: StateDigest, counters: [UInt64]) -> [SyncFrame.Body]? {
        var pushes: [SyncFrame.Body] = []
        for namespace in namespaces {
            guard let position = store.namespaces.names.firstIndex(of: namespace), let keys = peer.writtenSinceEqual[namespace] else {
                return nil
            }
            do {
                let responses = try store.respond(toKeys: Array(keys), namespace: namespace)
                guard !responses.isEmpty else { return nil }
                for response in responses { pushes.append(.push(response, root: mine.roots[position], change: counters[position])) }
            } catch {
                report(.storeFailed(error: error))
                return nil
            }
        }
        return pushes
    }

    /// Applies a sibling's push and acknowledges it with this store's root of the namespace.
    ///
    /// The rows merge as a response's do (a key whose pushed row does not cover the version here
    /// is shipped back); the sibling's root is taken into its last digest seen, and this store's
    /// into the last one it received, so neither side's next broadcast repeats what the two
    /// frames said. Equal roots record the change marks and end the round, as equal digests do.
    /// The acknowledgement says whether a push of this device's own writes follows (one is due
    /// at the pending broadcast) or a request for the keys this store left unmerged
    /// (`requestWhole`), so the pusher waits for it instead of asking again. A push in
    /// parts is merged part by part; only its last part is acknowledged, and no digest goes to
    /// the pusher while the parts arrive (`receivingUntil`, as for a response in parts).
    func handlePush(_ response: ReconcileResponse, root: [UInt8], change: UInt64, from sender: DeviceID, now: Int64) {
        guard let position = store.namespaces.names.firstIndex(of: response.namespace) else {
            report(.applyFailed(peer: sender, namespace: response.namespace, error: SyncKernelError(.unknownNamespace)))
            return
        }
        if !response.rows.isEmpty || !response.tombstones.isEmpty { peers[sender]?.storm.recordReceived(response.namespace) }
        // Whether this device's own broadcast was already due before the push's first part
        // (applying the push schedules one too, which is no write of this device's).
        let more = response.remaining > 0
        let broadcastDue = peers[sender]?.broadcastDueAtPush.removeValue(forKey: response.namespace) ?? (debounceDeadline != nil)
        if more { peers[sender]?.broadcastDueAtPush[response.namespace] = broadcastDue }
        peers[sender]?.receivingUntil = more ? now + timing.requestTimeoutMillis : nil
        guard let outcome = applyReporting(response, from: sender, now: now) else { return }
        let requested = !outcome.unresolvedKeys.isEmpty
        if requested { requestWhole(outcome.unresolvedKeys, namespace: response.namespace, from: sender, now: now) }
        if peers[sender]?.exchange.shipsBack == true, !outcome.keysToShipBack.isEmpty {
            answer(from: sender, namespace: response.namespace, now: now) { () throws(SyncKernelError) in
                try store.respond(toKeys: outcome.keysToShipBack, namespace: response.namespace, isFinal: true).map { .reconcileResponse($0) }
            }
        }
        guard !more, var peer = peers[sender] else { return }
        let mine = store.stateDigest()
        let counters = store.changeCounters()
        if let seen = peer.lastDigestSeen { peer.lastDigestSeen = StateDigest.replacingRoot(in: seen, at: position, with: root) ?? seen }
        let equal = settle(&peer, namespace: response.namespace, position: position, theirRoot: root, theirChange: change, mine: mine,
                           counters: counters, from: sender)
        // A push of this device's own is due (its writes not pushed yet, at the pending broadcast
        // or at the digest that answers its announcement) or already on its way.
        let pushDue = (broadcastDue || peer.announceAt != nil) && peer.writtenSinceEqual[response.namespace]?.isEmpty == false
        let following = !equal && (pushDue || requested || peer.pushesInFlight[response.namespace]?.isEmpty == false)
        // With this device's own push still due, the broadcast must not be skipped as if the
        // sibling held what the acknowledgement's root says: it has the root, not the rows (a push
        // already on its way carries them).
        if !pushDue, let sent = peer.lastBroadcast {
            peer.lastBroadcast = StateDigest.replacingRoot(in: sent, at: position, with: mine.roots[position]) ?? sent
        }
        peers[sender] = peer
        let answer: PushAnswer = mine.roots[position] == root ? .matched(pushChange: change)
            : .differs(pushChange: change, root: mine.roots[position])
        send(.pushAck(namespace: response.namespace, answer: answer, change: counters[position], following: following), to: sender)
    }

    /// Asks `sender` for the keys of its push this store left unmerged (`ApplyOutcome.unresolvedKeys`:
    /// a delta row over another history, an epoch it does not hold) whole, by a keyed
    /// `reconcile_req` of at most `ReconcileResponse.rowBytesPerFrame` key bytes per frame; the
    /// response merges as any, and the digest after it settles the round.
    func requestWhole(_ keys: [[UInt8]], namespace: String, from sender: DeviceID, now: Int64) {
        var part: [[UInt8]] = []
        var bytes = 0
        func flush() {
            guard !part.isEmpty else { return }
            send(.reconcileRequest(ReconcileRequest(namespace: namespace, buckets: [], keys: part)), to: sender)
            part = []
            bytes = 0
        }
        for key in keys {
            if bytes + key.count + 8 > ReconcileResponse.rowBytesPerFrame { flush() }
            part.append(key)
            bytes += key.count + 8
        }
        flush()
        peers[sender]?.awaiting[namespace] = now + timing.requestTimeoutMillis
    }

    /// Takes a sibling's acknowledgement of a push: its root of the namespace (given, or the root
    /// of the push it matches) goes into its last digest seen; equal to this store's, the marks
    /// are recorded and the round ends; unequal, or matching a push this replica no longer
    /// remembers, this device asks with its digest at once, or, when the sibling said a push of
    /// its own follows, at the next retry if that push does not settle it; while a later push of
    /// the namespace is on its way, its acknowledgement decides instead.
    func handlePushAck(namespace: String, answer: PushAnswer, change: UInt64, following: Bool, from sender: DeviceID, now: Int64) {
        guard var peer = peers[sender], let position = store.namespaces.names.firstIndex(of: namespace) else { return }
        defer { peers[sender] = peer }
        let inFlight = peer.pushesInFlight[namespace] ?? []
        let later = inFlight.filter { $0.change > answer.pushChange }
        peer.pushesInFlight[namespace] = later
        let theirRoot: [UInt8]? = switch answer {
        case .differs(_, let root): root
        case .matched(let pushChange): inFlight.last(where: { $0.change == pushChange })?.root
        }
        if let root = theirRoot {
            if let seen = peer.lastDigestSeen { peer.lastDigestSeen = StateDigest.replacingRoot(in: seen, at: position, with: root) ?? seen }
            if settle(&peer, namespace: namespace, position: position, theirRoot: root, theirChange: change, mine: store.stateDigest(),
                      counters: store.changeCounters(), from: sender) {
                peer.acknowledgedInStep = later.isEmpty
                return
            }
        }
        // A later push of this namespace is still on its way: its acknowledgement settles it (the
        // retry timer stays as the backstop).
        guard later.isEmpty else {
            if peer.retryAt == nil { peer.retryAt = now + peer.retryDelay }
            return
        }
        let mine = store.stateDigest()
        if peer.retryAt == nil { peer.retryAt = now + peer.retryDelay }
        guard !following, !peer.storm.isBackingOff(at: now) else { return }
        peers[sender] = peer
        send(digestBody(mine.encoded(), probe: true, for: peer), to: sender)
        peer = peers[sender] ?? peer
    }

    /// What equal roots of one namespace, learned from a push or its acknowledgement, settle:
    /// the change marks (recorded, or dropped when the sibling's counter went back), the writes
    /// a push carries (none since), and, when every namespace now agrees, the round. Returns
    /// whether the roots were equal.
    @discardableResult
    func settle(_ peer: inout PeerState, namespace: String, position: Int, theirRoot: [UInt8], theirChange: UInt64,
                        mine: StateDigest, counters: [UInt64], from sender: DeviceID) -> Bool {
        let kept = peer.marks
        guard mine.roots[position] == theirRoot else {
            peer.marks.forgetRolledBack(namespace, theirs: theirChange)
            if peer.marks != kept { keep(peer.marks, of: sender) }
            return false
        }
        peer.marks.record(namespace, mine: counters[position], theirs: theirChange)
        if peer.marks != kept { keep(peer.marks, of: sender) }
        peer.writtenSinceEqual[namespace] = []
        if peer.lastDigestSeen == mine.encoded() {
            endRound(&peer, with: sender)
            peer.retryDelay = timing.retryMillis
        }
        return true
    }

    /// Sends `pushes` (`pushBodies`) to `sibling`, whose state is `peer`: each namespace's
    /// last part records the push as in flight with the keys it carried, which are then no
    /// longer to push; the retry waits for the acknowledgement after the last part, a request's
    /// time for each part beyond the first.
    func sendPushes(_ pushes: [SyncFrame.Body], to sibling: DeviceID, peer: inout PeerState, now: Int64,
                            compact: Bool = false) {
        for body in pushes {
            guard case .push(let response, let root, let change) = body else { continue }
            peer.storm.recordShipped(response.namespace)
            if response.remaining == 0 {
                let push = PushInFlight(change: change, root: root, keys: peer.writtenSinceEqual[response.namespace] ?? [])
                peer.pushesInFlight[response.namespace] = Array(((peer.pushesInFlight[response.namespace] ?? []) + [push])
                    .suffix(Replica.pushesKept))
                peer.writtenSinceEqual[response.namespace] = []
            }
            send(body, to: sibling, compact: compact)
        }
        let due = now + peer.retryDelay + Int64(max(pushes.count - 1, 0)) * timing.requestTimeoutMillis
        peer.retryAt = max(peer.retryAt ?? due, due)
    }

    /// Takes the pushes to the sibling whose state is `peer` as lost (it restarted or
    /// reconnected, or their acknowledgements are overdue): their keys are to push again where
    /// this device still knows what it wrote since the equal roots (`pushKeyLimit` bounds them).
    func takePushesAsLost(_ peer: inout PeerState) {
        for (namespace, pushes) in peer.pushesInFlight {
            guard let written = peer.writtenSinceEqual[namespace] else { continue }
            let union = pushes.reduce(written) { $0.union($1.keys) }
            peer.writtenSinceEqual[namespace] = union.count <= pushKeyLimit ? union : nil
        }
        peer.pushesInFlight = [:]
    }

    /// Keeps in the store, for the next run, what this device wrote since it and each sibling
    /// that reads pushes last held equal roots, the pushes not acknowledged included (a clean
    /// stop calls it, from `ReplicaHost.closeStore`); a failure is reported and nothing is kept.
    public func keepPushBases() {
        var bases: [DeviceID: [String: Set<[UInt8]>]] = [:]
        for (sibling, state) in peers where state.readsPush {
            var peer = state
            takePushesAsLost(&peer)
            if !peer.writtenSinceEqual.isEmpty { bases[sibling] = peer.writtenSinceEqual }
        }
        do {
            try store.keepPushBases(bases)
        } catch {
            report(.storeFailed(error: error))
        }
    }

    /// Takes what the last run kept (`keepPushBases`) as each sibling's `writtenSinceEqual`, and
    /// takes the sibling to read pushes and compact headers as it did then (every build that
    /// reads pushes reads compact frames, so the announcement and the pushes go in that form;
    /// nothing else is assumed of it until its first announcing frame says what it reads, and one that no longer reads pushes refuses them and the retry's digest
    /// settles it), so what it lacks goes out as pushes at the first tick after this device's
    /// announcement; a store that took a new epoch on opening (restored, copied, rolled back)
    /// drops it.
    func takeKeptPushBases() {
        do {
            let bases = try store.takePushBases(limit: pushKeyLimit)
            guard mode == .sketch, store.epochChanges.isEmpty else { return }
            for (sibling, written) in bases where peers[sibling] != nil {
                peers[sibling]?.writtenSinceEqual = written
                peers[sibling]?.readsPush = true
                peers[sibling]?.readsCompact = true
                peers[sibling]?.pushesAtAnnouncement = true
            }
        } catch {
            report(.storeFailed(error: error))
        }
    }

    /// Pushes to `sibling` what this device kept of it at its last clean stop, once, after the
    /// heartbeat of its first announcement: each namespace it knows it wrote to since the two
    /// last held equal roots (the acknowledgement settles whether the sibling then agrees; the
    /// digest that answers the announcement starts an exchange for the rest).
    func pushKept(to sibling: DeviceID, peer: inout PeerState, now: Int64) {
        peer.pushesAtAnnouncement = false
        guard peer.readsPush else { return }
        let namespaces = store.namespaces.names.filter { pushable($0, for: peer) }
        guard !namespaces.isEmpty,
              let pushes = pushBodies(for: namespaces, of: peer, mine: store.stateDigest(), counters: store.changeCounters()) else { return }
        sendPushes(pushes, to: sibling, peer: &peer, now: now, compact: true)
    }
}
