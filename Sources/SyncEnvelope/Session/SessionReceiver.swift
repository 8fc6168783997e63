import SyncKernel

/// The sessions a device receives on: one per accepted hello, filed by the index its accept
/// named, and one per pair hello of this device's that a sibling accepted (its reply session),
/// filed by the index the hello reserved; each with its key, its sender's certificate and its
/// counter window.
///
/// Invariants: a session exists only for a hello that arrived in a whole envelope that passed
/// every check of the gate, seen set included, from a sibling in the roster, and its key is
/// derived from a fresh ephemeral key drawn here (`SessionFormat.sessionKey`), or for an accept
/// that answered this device's own pair hello in such an envelope, under the index reserved for
/// that sibling (`reserve`) and a key derived from the hello's ephemeral secret
/// (`SessionFormat.replyKey`); an index names at most one session or reservation, no sender
/// holds more than `perSender` sessions (the oldest goes first) nor more than `perSender`
/// reservations, so memory is bounded by the roster. A session envelope is accepted only under a known index, within its
/// session's lifetime and grace, while its sender's certificate is unexpired, at a counter its
/// window admits and with a tag that verifies; the counter is recorded only then. Nothing is
/// persisted: a new receiver (a restart) knows no session.
package struct SessionReceiver {
    /// The most sessions one sender may hold here at once (a renewal overlaps the session it
    /// replaces; a lost accept leaves one unused until it ages out or is pushed out).
    package static let perSender = 4

    private struct Session {
        let key: [UInt8]
        let certificate: SenderCertificate
        let createdAt: Int64
        var window = CounterWindow()
    }

    private let policy: SessionPolicy
    private let entropy: EntropySource
    private var sessions: [UInt32: Session] = [:]
    /// Each sender's indices, oldest first.
    private var bySender: [DeviceID: [UInt32]] = [:]
    /// Indices reserved for reply sessions not filed yet, each sibling's oldest first.
    private var reserved: [DeviceID: [UInt32]] = [:]

    /// No session yet; keys and indices from `entropy`, durations and epoch from `policy`.
    package init(policy: SessionPolicy, entropy: EntropySource) {
        self.policy = policy
        self.entropy = entropy
    }

    /// Sessions held.
    package var count: Int { sessions.count }

    /// Opens a receiving session for `hello` from the sibling of `certificate` at `now`, for the
    /// device holding `keys`: the accept to send back and, for a pair hello, the key of the reply
    /// session this device sends on under the hello's reply index; nil when the hello's
    /// ephemeral key is of small order (nothing is kept then).
    package mutating func accept(_ hello: SessionMessage.Hello, from certificate: SenderCertificate, keys: EnvelopeKeys,
                                 now: Int64) -> (accept: SessionMessage.Accept, replyKey: [UInt8]?)? {
        let secret = entropy.bytes(Sodium.keyBytes)
        guard let ephemeral = Sodium.envelopePublicKey(secretKey: secret),
              let shared = Sodium.sharedSecret(secretKey: secret, publicKey: hello.ephemeral) else { return nil }
        let index = freshIndex()
        guard let key = SessionFormat.sessionKey(sharedSecret: shared, channelKey: keys.channel.mac, initiator: certificate.device,
                                                 responder: keys.device, helloID: hello.helloID, initiatorEphemeral: hello.ephemeral,
                                                 responderEphemeral: ephemeral, index: index) else { return nil }
        var replyKey: [UInt8]?
        if let reply = hello.replyIndex {
            replyKey = SessionFormat.replyKey(sharedSecret: shared, channelKey: keys.channel.mac, initiator: certificate.device,
                                              responder: keys.device, helloID: hello.helloID, initiatorEphemeral: hello.ephemeral,
                                              responderEphemeral: ephemeral, index: index, replyIndex: reply)
            guard replyKey != nil else { return nil }
        }
        file(Session(key: key, certificate: certificate, createdAt: now), at: index)
        return (SessionMessage.Accept(helloID: hello.helloID, ephemeral: ephemeral, index: index, epoch: policy.epoch), replyKey)
    }

    /// Reserves an index for the reply session of a pair hello to `device`: no session or other
    /// reservation holds it. A sibling's oldest reservation beyond `perSender` is released.
    package mutating func reserve(for device: DeviceID) -> UInt32 {
        let index = freshIndex()
        var held = reserved[device, default: []] + [index]
        if held.count > SessionReceiver.perSender { held.removeFirst() }
        reserved[device] = held
        return index
    }

    /// Files the reply session of `certificate`'s device under `index`, which must be reserved
    /// for that device (the reservation is spent), keyed `key`, at `now`; false (nothing kept)
    /// otherwise.
    @discardableResult
    package mutating func fileReply(key: [UInt8], at index: UInt32, from certificate: SenderCertificate, now: Int64) -> Bool {
        guard let at = reserved[certificate.device]?.firstIndex(of: index) else { return false }
        reserved[certificate.device]?.remove(at: at)
        file(Session(key: key, certificate: certificate, createdAt: now), at: index)
        return true
    }

    /// The sibling for which `envelope`'s header names an index reserved for a reply session not
    /// filed yet, and that index, if any: its accept may be on its way, so a host that checks
    /// envelopes ahead of handling them checks it again after the envelopes before it.
    package func awaitedReply(_ envelope: [UInt8]) -> AwaitedReply? {
        guard let header = SessionFormat.header(envelope), sessions[header.index] == nil,
              let device = reserved.first(where: { $0.value.contains(header.index) })?.key else { return nil }
        return AwaitedReply(sibling: device, index: header.index)
    }

    /// Checks a session envelope (outer version 2, past the free checks) at `now`.
    package mutating func check(_ envelope: [UInt8], now: Int64) -> EnvelopeCheck {
        guard let header = SessionFormat.header(envelope) else { return .dropped(.malformed) }
        guard let session = sessions[header.index] else { return .dropped(.unknownSession) }
        let age = now - session.createdAt
        guard age >= -policy.graceMillis, age < policy.lifetimeMillis + policy.graceMillis else {
            forget(header.index, of: session.certificate.device)
            return .dropped(.sessionExpired)
        }
        guard !session.certificate.isExpired(atMillis: now) else { return .dropped(.expiredCertificate) }
        guard session.window.admits(header.counter) else { return .dropped(.replayed) }
        guard let frame = SessionFormat.open(envelope, header: header, key: session.key) else { return .dropped(.badSessionTag) }
        sessions[header.index]?.window.record(header.counter)
        return .passed(CheckedEnvelope(certificate: session.certificate, frame: frame, frameID: [], timestamp: now,
                                       bytes: envelope.count, checkedAt: now, viaSession: true))
    }

    private mutating func file(_ session: Session, at index: UInt32) {
        sessions[index] = session
        var held = bySender[session.certificate.device, default: []] + [index]
        while held.count > SessionReceiver.perSender {
            sessions[held.removeFirst()] = nil
        }
        bySender[session.certificate.device] = held
    }

    /// An index no session or reservation holds.
    private func freshIndex() -> UInt32 {
        var index = UInt32(0)
        repeat {
            index = entropy.bytes(SessionFormat.indexBytes).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        } while sessions[index] != nil || reserved.values.contains(where: { $0.contains(index) })
        return index
    }

    private mutating func forget(_ index: UInt32, of device: DeviceID) {
        sessions[index] = nil
        bySender[device]?.removeAll { $0 == index }
    }
}
