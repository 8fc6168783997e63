import SyncKernel

/// The sessions a device sends on: per sibling, the hello waiting for its accept and the session
/// in use, with its counter.
///
/// Invariants: a session is used only after its accept answered this device's own pending hello
/// (the same hello id, in a whole envelope the gate accepted from that sibling), for at most
/// `SessionPolicy.lifetimeMillis` by this device's clock and below `SessionFormat.counterLimit`;
/// each frame takes the next counter, so a key never meets a counter twice. A hello is due when
/// no session is usable or the one in use nears its end, and no hello is waiting; a waiting hello
/// unanswered for the handshake timeout (doubled after each unanswered one, up to 64 times) is
/// replaced, and so is one sent before the sibling's current epoch was heard (it was sent while
/// the sibling was not running, or before it restarted, so no accept will come: a device started
/// before its sibling opens its session as soon as the sibling's first hello arrives, not a
/// handshake timeout later), once per epoch heard. The replaced hello stays answerable until
/// the next one is replaced or a session opens, so an accept already on its way still counts. A
/// message from a sibling naming an epoch other than the one its accept named ends the session
/// to it (the sibling restarted and lost its receiving sessions). The ephemeral secret of a hello
/// lives only until its accept or its replacement's replacement.
///
/// Given a reply index (`helloIfDue`'s `reserve`), a hello is a pair hello: its accept opens the
/// reply session too, whose key `complete` hands back for the receiving side to file, and a pair
/// hello from the sibling opens the session to it at once (`openReply`), with no hello of this
/// device's. A pair hello left unanswered for its whole timeout (a sibling of an older build
/// drops it) makes the next hellos to that sibling one-direction hellos, until it names a new
/// epoch. Under a policy that sends short handshakes, hellos go in short handshake envelopes
/// first; one left unanswered for its whole timeout (a sibling of an older build drops the form,
/// one that does not hold this device's certificate cannot read it) makes the next hellos to that
/// sibling whole, until it names a new epoch, before a pair hello is given up.
package struct SessionSender {
    private struct Pending {
        let helloID: [UInt8]
        let secret: [UInt8]
        let ephemeral: [UInt8]
        let sentAt: Int64
        /// The sibling's epoch this device had heard when it sent the hello.
        let heardEpoch: [UInt8]?
        /// A pair hello's reply index.
        let replyIndex: UInt32?
        /// It goes in a short handshake envelope (`HandshakeFormat`).
        let short: Bool
        /// The sibling was seen sending on the reply session while its accept had not come.
        var replyLost = false
    }

    /// The reply session an accept of a pair hello opens: its key and the index this device
    /// reserved for it.
    package struct ReplySession: Sendable, Hashable {
        /// The key the sibling seals its frames to this device with.
        package let key: [UInt8]
        /// The index the hello reserved.
        package let index: UInt32
    }

    /// What an accept did.
    package enum Completion: Sendable, Hashable {
        /// It answered no waiting hello, or its ephemeral key is of small order: nothing changed.
        case refused
        /// It opened the session frames to the sibling go through, and, for a pair hello, the
        /// reply session to file on the receiving side.
        case opened(reply: ReplySession?)
    }

    private struct Current {
        let key: [UInt8]
        let index: UInt32
        let establishedAt: Int64
        let epoch: [UInt8]
        /// Opened by the sibling's pair hello (`openReply`), not by an accept of this device's.
        var isReply = false
        var counter: UInt64 = 0
    }

    private struct Peer {
        var pending: Pending?
        /// The hello `pending` replaced, still answerable.
        var replaced: Pending?
        var current: Current?
        /// The epoch the sibling's latest hello or accept named.
        var heardEpoch: [UInt8]?
        /// Hellos sent since the last accept.
        var unanswered = 0
        /// A pair hello went unanswered for its timeout: one-direction hellos until a new epoch.
        var pairDeclined = false
        /// A hello in a short handshake envelope went unanswered for its timeout: hellos go in
        /// whole envelopes until a new epoch.
        var shortDeclined = false
    }

    private let policy: SessionPolicy
    private var peers: [DeviceID: Peer] = [:]

    /// No session yet, under `policy`.
    package init(policy: SessionPolicy) {
        self.policy = policy
    }

    /// This device's epoch, which its hellos carry.
    package var epoch: [UInt8] { policy.epoch }

    /// Whether a session to `device` is usable at `now`.
    package func hasSession(to device: DeviceID, now: Int64) -> Bool {
        peers[device]?.current.map { usable($0, now: now) } ?? false
    }

    /// The session envelope of `frame` to `device` at `now` with `wake`, taking the next counter;
    /// nil when no session is usable (the frame then goes in a whole envelope).
    package mutating func seal(_ frame: [UInt8], to device: DeviceID, wake: WakeClass, now: Int64) -> [UInt8]? {
        guard let current = peers[device]?.current, usable(current, now: now),
              let bytes = SessionFormat.seal(frame, wake: wake, index: current.index, counter: current.counter, key: current.key) else {
            return nil
        }
        peers[device]?.current?.counter = current.counter + 1
        return bytes
    }

    /// A hello to send `device` now, drawn from `entropy`, when one is due (it is then waiting);
    /// nil otherwise. It is a pair hello naming the index `reserve` gives, unless `reserve` gives
    /// none or the sibling left a pair hello unanswered (`Peer.pairDeclined`); `reserve` is
    /// called only when a hello is due.
    package mutating func helloIfDue(to device: DeviceID, now: Int64, entropy: EntropySource,
                                     reserve: () -> UInt32? = { nil }) -> SessionMessage.Hello? {
        var peer = peers[device, default: Peer()]
        if let current = peer.current, usable(current, now: now),
           now - current.establishedAt < policy.lifetimeMillis - policy.rekeyMarginMillis { return nil }
        if let pending = peer.pending, pending.heardEpoch == peer.heardEpoch, !pending.replyLost {
            let wait = policy.handshakeTimeoutMillis << min(peer.unanswered - 1, 6)
            if now >= pending.sentAt, now - pending.sentAt < wait { return nil }
            if now - pending.sentAt >= wait {
                if pending.short { peer.shortDeclined = true } else if pending.replyIndex != nil { peer.pairDeclined = true }
            }
        }
        let secret = entropy.bytes(Sodium.keyBytes)
        guard let ephemeral = Sodium.envelopePublicKey(secretKey: secret) else { return nil }
        let replyIndex = peer.pairDeclined ? nil : reserve()
        let hello = SessionMessage.Hello(helloID: entropy.bytes(SessionMessage.helloIDBytes), ephemeral: ephemeral, epoch: policy.epoch,
                                         replyIndex: replyIndex)
        if let pending = peer.pending, pending.heardEpoch != peer.heardEpoch { peer.unanswered = 0 }
        peer.replaced = peer.pending
        peer.pending = Pending(helloID: hello.helloID, secret: secret, ephemeral: ephemeral, sentAt: now, heardEpoch: peer.heardEpoch,
                               replyIndex: replyIndex, short: policy.shortHandshakes && !peer.shortDeclined)
        peer.unanswered += 1
        peers[device] = peer
        return hello
    }

    /// Takes in `accept` from `device` at `now` for the device holding `keys`: the session it
    /// opens is used from now on, and the reply session of a pair hello is handed back.
    /// `.refused` (nothing changes) when it answers no waiting hello (the pending one or the one
    /// it replaced) or its ephemeral key is of small order.
    @discardableResult
    package mutating func complete(_ accept: SessionMessage.Accept, from device: DeviceID, keys: EnvelopeKeys, now: Int64) -> Completion {
        guard let peer = peers[device],
              let pending = [peer.pending, peer.replaced].lazy.compactMap({ $0 }).first(where: { $0.helloID == accept.helloID }),
              let shared = Sodium.sharedSecret(secretKey: pending.secret, publicKey: accept.ephemeral),
              let key = SessionFormat.sessionKey(sharedSecret: shared, channelKey: keys.channel.mac, initiator: keys.device,
                                                 responder: device, helloID: pending.helloID, initiatorEphemeral: pending.ephemeral,
                                                 responderEphemeral: accept.ephemeral, index: accept.index) else { return .refused }
        var reply: ReplySession?
        if let replyIndex = pending.replyIndex {
            guard let replyKey = SessionFormat.replyKey(sharedSecret: shared, channelKey: keys.channel.mac, initiator: keys.device,
                                                        responder: device, helloID: pending.helloID,
                                                        initiatorEphemeral: pending.ephemeral, responderEphemeral: accept.ephemeral,
                                                        index: accept.index, replyIndex: replyIndex) else { return .refused }
            reply = ReplySession(key: replyKey, index: replyIndex)
        }
        peers[device] = Peer(current: Current(key: key, index: accept.index, establishedAt: now, epoch: accept.epoch),
                             heardEpoch: accept.epoch, pairDeclined: peer.pairDeclined, shortDeclined: peer.shortDeclined)
        return .opened(reply: reply)
    }

    /// Opens the session to `device` that its pair `hello`, accepted here at `now`, reserved:
    /// keyed `key` (`SessionReceiver.accept`'s reply key), under the hello's reply index and
    /// epoch, used from now on. A hello of this device's still waiting stays answerable.
    package mutating func openReply(to device: DeviceID, for hello: SessionMessage.Hello, key: [UInt8], now: Int64) {
        guard let index = hello.replyIndex else { return }
        var peer = peers[device, default: Peer()]
        peer.current = Current(key: key, index: index, establishedAt: now, epoch: hello.epoch, isReply: true)
        peer.heardEpoch = hello.epoch
        peers[device] = peer
    }

    /// Whether the hello waiting for `device`'s accept goes in a short handshake envelope
    /// (`HandshakeFormat`): the policy sends them, and no short hello to the sibling went
    /// unanswered for its timeout since it last named a new epoch.
    package func helloIsShort(to device: DeviceID) -> Bool {
        peers[device]?.pending?.short ?? false
    }

    /// Notes that `device` sends on the reply session (`index`) of this device's waiting pair
    /// hello while the accept that opens it never came (it was lost): a hello is due at once,
    /// once per hello (envelopes on the reply session of a hello already replaced change
    /// nothing). Returns whether that made one due.
    package mutating func replyLost(from device: DeviceID, index: UInt32) -> Bool {
        guard let pending = peers[device]?.pending, pending.replyIndex == index, !pending.replyLost else { return false }
        peers[device]?.pending?.replyLost = true
        return true
    }

    /// Notes that a hello from `device` arrived: a reply session to it, opened by an earlier pair
    /// hello of its own, ends, since a sibling says hello only while it has no session to this
    /// device (or one near its end) and so may never have taken in the accept that opened it
    /// (the sibling's new pair hello, if it is one, opens the next).
    package mutating func helloArrived(from device: DeviceID) {
        if peers[device]?.current?.isReply == true { peers[device]?.current = nil }
    }

    /// Notes that `device` speaks for the receiving sessions of `epoch` (its hello or accept said
    /// so): a session to it accepted under another epoch is gone on its side, so it ends here
    /// too, a hello sent before this epoch was heard is due again, and a pair hello is tried
    /// again (the sibling may have been updated).
    package mutating func observe(epoch: [UInt8], of device: DeviceID) {
        var peer = peers[device, default: Peer()]
        if peer.heardEpoch != epoch {
            peer.pairDeclined = false
            peer.shortDeclined = false
        }
        peer.heardEpoch = epoch
        if let current = peer.current, current.epoch != epoch { peer.current = nil }
        peers[device] = peer
    }

    private func usable(_ current: Current, now: Int64) -> Bool {
        now >= current.establishedAt && now - current.establishedAt < policy.lifetimeMillis
            && current.counter < SessionFormat.counterLimit
    }
}
