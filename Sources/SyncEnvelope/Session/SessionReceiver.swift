import SyncKernel

/// The sessions a device receives on: one per accepted hello, filed by the index its accept
/// named, each with its key, its sender's certificate and its counter window.
///
/// Invariants: a session exists only for a hello that arrived in a whole envelope that passed
/// every check of the gate, seen set included, from a sibling in the roster, and its key is
/// derived from a fresh ephemeral key drawn here (`SessionFormat.sessionKey`); an index names at
/// most one session, and no sender holds more than `perSender` (the oldest goes first), so memory
/// is bounded by the roster. A session envelope is accepted only under a known index, within its
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

    /// No session yet; keys and indices from `entropy`, durations and epoch from `policy`.
    package init(policy: SessionPolicy, entropy: EntropySource) {
        self.policy = policy
        self.entropy = entropy
    }

    /// Sessions held.
    package var count: Int { sessions.count }

    /// Opens a receiving session for `hello` from the sibling of `certificate` at `now`, for the
    /// device holding `keys`: the accept to send back, nil when the hello's ephemeral key is of
    /// small order (nothing is kept then).
    package mutating func accept(_ hello: SessionMessage.Hello, from certificate: SenderCertificate, keys: EnvelopeKeys,
                                 now: Int64) -> SessionMessage.Accept? {
        let secret = entropy.bytes(Sodium.keyBytes)
        guard let ephemeral = Sodium.envelopePublicKey(secretKey: secret),
              let shared = Sodium.sharedSecret(secretKey: secret, publicKey: hello.ephemeral) else { return nil }
        var index = UInt32(0)
        repeat {
            index = entropy.bytes(SessionFormat.indexBytes).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        } while sessions[index] != nil
        guard let key = SessionFormat.sessionKey(sharedSecret: shared, channelKey: keys.channel.mac, initiator: certificate.device,
                                                 responder: keys.device, helloID: hello.helloID, initiatorEphemeral: hello.ephemeral,
                                                 responderEphemeral: ephemeral, index: index) else { return nil }
        sessions[index] = Session(key: key, certificate: certificate, createdAt: now)
        var held = bySender[certificate.device, default: []] + [index]
        while held.count > SessionReceiver.perSender {
            sessions[held.removeFirst()] = nil
        }
        bySender[certificate.device] = held
        return SessionMessage.Accept(helloID: hello.helloID, ephemeral: ephemeral, index: index, epoch: policy.epoch)
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

    private mutating func forget(_ index: UInt32, of device: DeviceID) {
        sessions[index] = nil
        bySender[device]?.removeAll { $0 == index }
    }
}
