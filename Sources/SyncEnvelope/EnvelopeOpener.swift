import Synchronization
import SyncKernel

/// The gate's stateless stage: every check of `EnvelopeGate` but the seen set, on the keys and a
/// roster held behind a lock, so it can run on any thread (a relay client's, where the bytes
/// arrive) and the cryptography of an envelope is paid once, where it is received.
///
/// The checks are checks 1 to 12 of `EnvelopeGate`, in its order, for a whole envelope; a session
/// envelope (outer version 2) passes the free checks and key material, then its session's
/// (`SessionReceiver.check`: index, lifetime, certificate expiry, counter window, AEAD tag),
/// which record its counter; a short handshake envelope (outer version 3) passes the free checks
/// and key material, then `HandshakeFormat.open` against the roster and its sender's certificate
/// expiry (`checkHandshake`). Before it opens anything, an
/// envelope identical byte for byte to one its gate accepted (`RecentEnvelopes`) is dropped for
/// the reason the gate would give (`replayed`, `outsideWindow` or `expiredCertificate`), so a
/// replay costs a keyed hash instead of the whole check. Invariants: it never traps on
/// any input, never parses a frame, and changes nothing but its roster, which only `learn` grows,
/// and its record of recent envelopes, which only its gate writes; it counts nothing (its caller does); a device outside the roster passes only when the opener
/// `learnsSiblings`, and is learned only by the gate once its envelope passed the seen set too.
public final class EnvelopeOpener: Sendable {
    /// This device's keys; nil when it has none (every envelope is then dropped).
    public let keys: EnvelopeKeys?
    /// Whether a certified device of this account outside the roster passes.
    public let learnsSiblings: Bool
    private let siblings: Mutex<SiblingRoster>
    private let recent: Mutex<RecentEnvelopes?>
    private let sessions: Mutex<SessionReceiver?>

    /// An opener for the device holding `keys` (nil: none), accepting the siblings of `roster`
    /// (and, when `learnsSiblings`, any other device this account certified).
    public convenience init(keys: EnvelopeKeys?, roster: SiblingRoster, learnsSiblings: Bool = false) {
        self.init(keys: keys, roster: roster, learnsSiblings: learnsSiblings, window: nil)
    }

    /// An opener as above whose gate, when `window` is given (its seen set's), remembers what it
    /// accepted so a byte-for-byte replay is refused before it is opened, and which, under a
    /// session policy, accepts the session envelopes of the hellos it answered (their keys and
    /// indices drawn from `entropy`).
    package init(keys: EnvelopeKeys?, roster: SiblingRoster, learnsSiblings: Bool, window: ReplayWindow?,
                 sessions policy: SessionPolicy? = nil, entropy: sending EntropySource = .system) {
        self.keys = keys
        self.learnsSiblings = learnsSiblings
        siblings = Mutex(roster)
        let receiver: SessionReceiver? = if let policy { SessionReceiver(policy: policy, entropy: entropy) } else { nil }
        sessions = Mutex(receiver)
        let key = keys.flatMap { keys in
            Sodium.deriveKey(from: keys.deviceKeys.envelopeSecretKey, id: 1, context: "SKrecent", count: Sodium.shortHashKeyBytes)
        }
        recent = Mutex(window.flatMap { window in key.map { RecentEnvelopes(key: $0, window: window) } })
    }

    /// Envelopes remembered as accepted (0 for an opener without a gate).
    package var recentCount: Int { recent.withLock { $0?.count ?? 0 } }

    /// Records `checked` as accepted, so the same bytes are refused before they are opened again.
    package func remember(_ checked: CheckedEnvelope) {
        guard let print = checked.fingerprint else { return }
        recent.withLock { $0?.remember(print, timestamp: checked.timestamp, certificate: checked.certificate) }
    }

    /// Forgets the accepted envelopes stamped at or below `floor` (the seen set gave them up).
    package func forget(atOrBelow floor: Int64) {
        recent.withLock { $0?.forget(atOrBelow: floor) }
    }

    /// Receiving sessions held (0 without a session policy).
    package var sessionCount: Int { sessions.withLock { $0?.count ?? 0 } }

    /// Opens a receiving session for `hello` from the sibling `device` at `now`: the accept to
    /// send it and, for a pair hello, the key of the reply session to send on; nil without a
    /// session policy or keys, for a device outside the roster, or a hello whose ephemeral key is
    /// of small order. The host calls it only for a hello that arrived in a whole envelope its
    /// gate accepted from `device`.
    package func acceptSession(_ hello: SessionMessage.Hello, from device: DeviceID,
                               now: Int64) -> (accept: SessionMessage.Accept, replyKey: [UInt8]?)? {
        guard let keys, let certificate = siblings.withLock({ $0.certificate(of: device) }) else { return nil }
        return sessions.withLock { receiver in receiver?.accept(hello, from: certificate, keys: keys, now: now) }
    }

    /// Reserves the index a pair hello to `device` names for its reply session; nil without a
    /// session policy (the sealer then sends a one-direction hello).
    package func reserveReply(for device: DeviceID) -> UInt32? {
        sessions.withLock { receiver in receiver?.reserve(for: device) }
    }

    /// Files the reply session `device` opened by accepting this device's pair hello, under the
    /// index the hello reserved, at `now`; false for a device outside the roster or an index not
    /// reserved for it. The host calls it only for an accept that arrived in a whole envelope its
    /// gate accepted from `device` and that answered this device's own pair hello.
    @discardableResult
    package func fileReply(key: [UInt8], at index: UInt32, from device: DeviceID, now: Int64) -> Bool {
        guard let certificate = siblings.withLock({ $0.certificate(of: device) }) else { return false }
        return sessions.withLock { receiver in receiver?.fileReply(key: key, at: index, from: certificate, now: now) ?? false }
    }

    /// The sibling whose reply session `envelope`, which `check` dropped as `unknownSession`,
    /// names, when that session's accept may still be ahead of it: a host that checks envelopes
    /// before it handles the ones queued earlier checks it again once those are handled, and
    /// one still unknown then tells the sealer the accept was lost
    /// (`SealedTransport.replyLost(_:)`).
    public func awaitedReply(_ envelope: [UInt8]) -> AwaitedReply? {
        sessions.withLock { receiver in receiver?.awaitedReply(envelope) }
    }

    /// The siblings whose envelopes pass (a learning gate's grows).
    public var roster: SiblingRoster { siblings.withLock { $0 } }

    /// Adds the device of `certificate` to the roster of an opener that `learnsSiblings`; false
    /// when it does not learn, the device was there already or the account did not issue it
    /// (nothing changes then).
    package func learn(_ certificate: SenderCertificate) -> Bool {
        guard learnsSiblings, let keys else { return false }
        return siblings.withLock { roster in
            guard !roster.contains(certificate.device), let grown = try? roster.adding(certificate, for: keys) else { return false }
            roster = grown
            return true
        }
    }

    /// The gate's free checks alone (size, outer version and wake class), which read three
    /// numbers of the envelope and nothing else: the reason the gate drops `envelope` for at
    /// them, nil when it passes them. A whole envelope (version 1) is bounded by
    /// `EnvelopeFormat`'s sizes, a session envelope (version 2) by `SessionFormat`'s, a short
    /// handshake envelope (version 3) by `HandshakeFormat`'s.
    public static func freeCheck(_ envelope: [UInt8]) -> EnvelopeDropReason? {
        guard envelope.count <= EnvelopeFormat.maxEnvelopeBytes else { return .oversized }
        guard envelope.count >= SessionFormat.minBytes else { return .truncated }
        guard WakeClass(rawValue: envelope[1]) != nil else { return .unknownFormat }
        switch envelope[0] {
        case EnvelopeFormat.version: return envelope.count >= EnvelopeFormat.minEnvelopeBytes ? nil : .truncated
        case SessionFormat.version: return envelope.count <= SessionFormat.maxBytes ? nil : .oversized
        case HandshakeFormat.version:
            return envelope.count < HandshakeFormat.minBytes ? .truncated : envelope.count <= HandshakeFormat.maxBytes ? nil : .oversized
        default: return .unknownFormat
        }
    }

    /// Runs checks 1 to 12 on `envelope` at `now` (milliseconds since 1970).
    public func check(_ envelope: [UInt8], now: Int64) -> EnvelopeCheck {
        if let reason = Self.freeCheck(envelope) { return .dropped(reason) }
        guard let keys else { return .dropped(.noKeyMaterial) }
        if envelope[0] == SessionFormat.version {
            return sessions.withLock { receiver in receiver?.check(envelope, now: now) ?? .dropped(.unknownSession) }
        }
        let (print, replay) = recent.withLock { recent -> (UInt64?, EnvelopeDropReason?) in
            guard let recent, let print = recent.fingerprint(envelope) else { return (nil, nil) }
            return (print, recent.verdict(print, now: now))
        }
        if let replay { return .dropped(replay) }
        if envelope[0] == HandshakeFormat.version { return checkHandshake(envelope, keys: keys, now: now, fingerprint: print) }
        guard let plaintext = Sodium.open(envelope[EnvelopeFormat.outerHeaderBytes...], publicKey: keys.deviceKeys.envelopePublicKey,
                                          secretKey: keys.deviceKeys.envelopeSecretKey) else { return .dropped(.unopenable) }
        guard let inside = EnvelopeFormat.parseInside(plaintext) else { return .dropped(.malformed) }
        let certificate = inside.certificate
        guard certificate.userIDHash == keys.userIDHash else { return .dropped(.foreignAccount) }
        guard !certificate.isExpired(atMillis: now) else { return .dropped(.expiredCertificate) }
        guard Sodium.verifyTag(inside.mac, of: inside.authenticated, key: keys.channel.mac) else { return .dropped(.badMAC) }
        guard certificate.verify(issuer: keys.issuerPublicKey) else { return .dropped(.badCertificate) }
        guard certificate.device != keys.device, learnsSiblings || siblings.withLock({ $0.contains(certificate.device) }) else {
            return .dropped(.notASibling)
        }
        guard Sodium.verify(inside.signature, of: EnvelopeFormat.signedMessage(inside.signed),
                            publicKey: certificate.device.publicKey) else { return .dropped(.badSignature) }
        guard inside.recipient == keys.device else { return .dropped(.misaddressed) }
        return .passed(CheckedEnvelope(certificate: certificate, frame: inside.frame, frameID: inside.frameID,
                                       timestamp: inside.timestamp, bytes: envelope.count, checkedAt: now, fingerprint: print))
    }

    /// Checks a short handshake envelope (`HandshakeFormat`) for a gate with a session policy:
    /// `unknownFormat` without one; the masked reference must name a sibling of the roster
    /// (`notASibling`: the form cannot carry a certificate to learn), the key derived from its
    /// certified envelope key must open it (`unopenable`), the inside must be a timestamp and a
    /// session message (`malformed`), and that sibling's certificate must not have expired at
    /// `now` (`expiredCertificate`). The seen set then judges its timestamp and frame id.
    private func checkHandshake(_ envelope: [UInt8], keys: EnvelopeKeys, now: Int64, fingerprint: UInt64?) -> EnvelopeCheck {
        guard sessions.withLock({ $0 != nil }) else { return .dropped(.unknownFormat) }
        switch HandshakeFormat.open(envelope, keys: keys, roster: roster) {
        case .failure(.unknownSender): return .dropped(.notASibling)
        case .failure(.unopenable): return .dropped(.unopenable)
        case .failure(.malformed): return .dropped(.malformed)
        case .success(let opened):
            guard !opened.certificate.isExpired(atMillis: now) else { return .dropped(.expiredCertificate) }
            return .passed(CheckedEnvelope(certificate: opened.certificate, frame: opened.message, frameID: opened.frameID,
                                           timestamp: opened.timestamp, bytes: envelope.count, checkedAt: now, fingerprint: fingerprint,
                                           viaHandshake: true))
        }
    }
}
