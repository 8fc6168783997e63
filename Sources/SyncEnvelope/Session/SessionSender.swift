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
package struct SessionSender {
    private struct Pending {
        let helloID: [UInt8]
        let secret: [UInt8]
        let ephemeral: [UInt8]
        let sentAt: Int64
        /// The sibling's epoch this device had heard when it sent the hello.
        let heardEpoch: [UInt8]?
    }

    private struct Current {
        let key: [UInt8]
        let index: UInt32
        let establishedAt: Int64
        let epoch: [UInt8]
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
    /// nil otherwise.
    package mutating func helloIfDue(to device: DeviceID, now: Int64, entropy: EntropySource) -> SessionMessage.Hello? {
        var peer = peers[device, default: Peer()]
        if let current = peer.current, usable(current, now: now),
           now - current.establishedAt < policy.lifetimeMillis - policy.rekeyMarginMillis { return nil }
        if let pending = peer.pending, pending.heardEpoch == peer.heardEpoch {
            let wait = policy.handshakeTimeoutMillis << min(peer.unanswered - 1, 6)
            if now >= pending.sentAt, now - pending.sentAt < wait { return nil }
        }
        let secret = entropy.bytes(Sodium.keyBytes)
        guard let ephemeral = Sodium.envelopePublicKey(secretKey: secret) else { return nil }
        let hello = SessionMessage.Hello(helloID: entropy.bytes(SessionMessage.helloIDBytes), ephemeral: ephemeral, epoch: policy.epoch)
        if let pending = peer.pending, pending.heardEpoch != peer.heardEpoch { peer.unanswered = 0 }
        peer.replaced = peer.pending
        peer.pending = Pending(helloID: hello.helloID, secret: secret, ephemeral: ephemeral, sentAt: now, heardEpoch: peer.heardEpoch)
        peer.unanswered += 1
        peers[device] = peer
        return hello
    }

    /// Takes in `accept` from `device` at `now` for the device holding `keys`: the session it
    /// opens is used from now on. False (nothing changes) when it answers no waiting hello (the
    /// pending one or the one it replaced) or its ephemeral key is of small order.
    @discardableResult
    package mutating func complete(_ accept: SessionMessage.Accept, from device: DeviceID, keys: EnvelopeKeys, now: Int64) -> Bool {
        guard let peer = peers[device],
              let pending = [peer.pending, peer.replaced].lazy.compactMap({ $0 }).first(where: { $0.helloID == accept.helloID }),
              let shared = Sodium.sharedSecret(secretKey: pending.secret, publicKey: accept.ephemeral),
              let key = SessionFormat.sessionKey(sharedSecret: shared, channelKey: keys.channel.mac, initiator: keys.device,
                                                 responder: device, helloID: pending.helloID, initiatorEphemeral: pending.ephemeral,
                                                 responderEphemeral: accept.ephemeral, index: accept.index) else { return false }
        peers[device] = Peer(current: Current(key: key, index: accept.index, establishedAt: now, epoch: accept.epoch),
                             heardEpoch: accept.epoch)
        return true
    }

    /// Notes that `device` speaks for the receiving sessions of `epoch` (its hello or accept said
    /// so): a session to it accepted under another epoch is gone on its side, so it ends here
    /// too, and a hello sent before this epoch was heard is due again.
    package mutating func observe(epoch: [UInt8], of device: DeviceID) {
        var peer = peers[device, default: Peer()]
        peer.heardEpoch = epoch
        if let current = peer.current, current.epoch != epoch { peer.current = nil }
        peers[device] = peer
    }

    private func usable(_ current: Current, now: Int64) -> Bool {
        now >= current.establishedAt && now - current.establishedAt < policy.lifetimeMillis
            && current.counter < SessionFormat.counterLimit
    }
}
