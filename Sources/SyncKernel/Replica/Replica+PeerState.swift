extension Replica {
    /// What a replica holds of one sibling: the exchange negotiated with it, what it announced,
    /// the digests seen and sent, the pushes in flight, the timers and the storm guard.
    ///
    /// Invariant: one per sibling, owned by the replica and changed only on its isolation domain.
    struct PeerState {
        var lastDigestSeen: [UInt8]?
        var lastBroadcast: [UInt8]?
        /// The exchange negotiated with the sibling: the mode's fallback (the spec's) until its
        /// frames show another this mode prefers (`negotiate`), never back.
        var exchange: any ReconcileExchange
        /// The sibling reads compact frames: it listed `SyncFrame.compactCapability` or sent one.
        var readsCompact = false
        /// The sibling reads sketches past the standard capacity: it listed `SyncFrame.wideCapability`.
        var readsWide = false
        /// The sibling reads `push` and `push_ack`: it listed `SyncFrame.pushCapability`.
        var readsPush = false
        /// The sibling reads epoch announcements, epoch references and delta rows: it listed
        /// `SyncFrame.leanCapability`.
        var readsLean = false
        /// The sibling's transport proves the account: it listed
        /// `SyncFrame.impliedAccountCapability`, so compact frames to it leave the tag out.
        var readsImpliedAccount = false
        /// The keys this device wrote since it and the sibling last held equal roots and not
        /// pushed yet, by namespace: what the next push to the sibling carries (the pushes in
        /// flight carry the rest). A namespace absent is unknown (no equal roots seen since this
        /// replica started, or more than `pushKeyLimit` keys written), and its changes go out as
        /// a digest. Kept across a clean stop (`keepPushBases`), the pushes in flight included.
        var writtenSinceEqual: [String: Set<[UInt8]>] = [:]
        /// The pushes to the sibling not yet acknowledged, by namespace, oldest first, at most
        /// `Replica.pushesKept`; an acknowledgement that matches a push (`PushAnswer.matched`)
        /// names it by its counter. A push taken as lost gives its keys back to
        /// `writtenSinceEqual` (`takePushesAsLost`).
        var pushesInFlight: [String: [PushInFlight]] = [:]
        /// While a push of several parts from the sibling arrives, by namespace: whether this
        /// device's own broadcast was due when its first part came (what its acknowledgement's
        /// `following` says, not the broadcast the parts themselves scheduled).
        var broadcastDueAtPush: [String: Bool] = [:]
        var knowsOurCapability = false
        /// What this device kept of the sibling at its last clean stop goes out as pushes at the
        /// first tick after its next announcement (`takeKeptPushBases`).
        var pushesAtAnnouncement = false
        /// When a heartbeat of the sibling's was last answered with pushes, and until when those
        /// pushes may still be on their way (their acknowledgement's due time, a request's time
        /// for each part past the first, and at least two `LoopTiming.retryMillis`: the sibling
        /// repeats its announcement one interval after it). A heartbeat inside that window repeats the same
        /// announcement (its answer has not reached the sibling yet): it neither takes those
        /// pushes as lost nor ships the writes again, so a sibling that keeps announcing while a
        /// large push travels gets each row once; past the window an unacknowledged push is
        /// taken as lost and goes again, at most once per window.
        var heartbeatPushes: (at: Int64, until: Int64)?
        var pushedSinceDigest = false
        /// An acknowledgement with equal roots settled the last push between the two, this
        /// device's to the sibling (saying nothing follows) or the sibling's of this device's last
        /// push, and this device sent the sibling nothing since: a broadcast of a digest the
        /// sibling's last digest equals would tell it nothing that acknowledgement did not
        /// (`broadcastDigest` skips it).
        var acknowledgedInStep = false
        var marks = ChangeMarks()
        var reconciling = false
        var awaiting: [String: Int64] = [:]
        /// While an answer of this sibling's arrives in parts: the last part is due before this
        /// instant, and no digest goes to the sibling meanwhile (it would start another answer).
        var receivingUntil: Int64?
        var retryAt: Int64?
        /// When to repeat the announcement if the sibling still has shown no digest since it:
        /// `Int64.min` right after `announce()` (armed at the next tick), nil once it answered.
        var announceAt: Int64?
        var announceDelay: Int64
        var retryDelay: Int64
        var storm = StormGuard()
        var reportedSchemas: Set<SchemaFingerprint> = []
        /// What the sibling last announced (sorted, once each), nil before it announced.
        var announced: [String]?
    }
}

extension Replica.PeerState {
    /// Whether the pushes that answered the sibling's last heartbeat may still be on their way
    /// at `now` (inside `heartbeatPushes`; a clock gone back is outside it).
    func answeringHeartbeat(at now: Int64) -> Bool {
        heartbeatPushes.map { now >= $0.at && now < $0.until } ?? false
    }
}
