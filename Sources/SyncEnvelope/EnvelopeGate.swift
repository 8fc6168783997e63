import SyncKernel

/// The self-gate: what a device runs on every envelope from the relay before any byte of the
/// frame inside is parsed. A host runs it first and hands only an accepted envelope's frame to
/// `ReplicaHost.receive` (or `Replica.receive`), with the sender it names (`SealedReceiver`
/// does exactly that).
///
/// The checks, in order; the first that fails drops the envelope with its reason:
/// 1. size, on the raw bytes before anything is decrypted: above `SealedEnvelope.maxBytes`
///    `oversized`, below the fixed overhead `truncated`;
/// 2. the outer version and wake class (`unknownFormat`);
/// 3. key material: none, `noKeyMaterial` (fail closed);
/// 4. the sealed box opens with this device's envelope key (`unopenable`: sealed to another
///    device, or damaged);
/// 5. the inside's layout and its certificate's encoding (`malformed`);
/// 6. the certificate's userIDHash is this device's own (`foreignAccount`);
/// 7. the certificate verifies under the account's issuer key (`badCertificate`);
/// 8. it has not expired at `now` (`expiredCertificate`);
/// 9. the MAC verifies under the sibling channel key (`badMAC`);
/// 10. the certificate's device is not this device, and is a sibling in the roster or, for a gate
///     that learns siblings (`learnsSiblings`), any other device: its certificate already
///     verified under this account's issuer, names this account and has not expired, and the MAC
///     under the account's channel key verified (`notASibling`);
/// 11. the sender's signature verifies under that device's key (`badSignature`);
/// 12. the inside names this device as the recipient (`misaddressed`);
/// 13. the timestamp is inside the replay window (`outsideWindow`), the frame id is new
///     (`replayed`), and the seen set recorded it (`replayStoreUnavailable`).
///
/// Invariants: every envelope is either accepted or dropped with exactly one reason; each drop
/// is counted under its reason (`dropCounts`) and reported once as an `EnvelopeEvent.dropped`
/// (`drainEvents()`); the gate never parses a frame (no `SyncFrame` decoding happens here, and a
/// dropped frame is never returned), never traps on any input, and records a frame id only for
/// an envelope that passed every other check. A learning gate adds a device outside its roster
/// only once an envelope of it passed every check, signature and seen set included, and hands
/// its certificate to the host once (`drainLearned()`); a gate that does not learn never changes
/// its roster. Not `Sendable`: one owner runs it (it holds the seen set's SQLite connection).
public final class EnvelopeGate {
    /// This device's keys; nil when it has none (every envelope is then dropped).
    public let keys: EnvelopeKeys?
    /// The siblings whose envelopes are accepted (a learning gate's grows).
    public private(set) var roster: SiblingRoster
    /// Whether a certified device of this account outside the roster is accepted and learned.
    public let learnsSiblings: Bool
    private let replay: ReplayGuard
    private var learned: [SenderCertificate] = []
    /// Envelopes dropped so far, by reason.
    public private(set) var dropCounts: [EnvelopeDropReason: Int] = [:]
    /// Envelopes accepted so far.
    public private(set) var acceptedCount = 0
    private var events: [EnvelopeEvent] = []

    /// A gate for the device holding `keys` (nil: none), accepting the siblings of `roster`
    /// (and, when `learnsSiblings`, learning any other device this account certified), recording
    /// frame ids in `replay`.
    public init(keys: EnvelopeKeys?, roster: SiblingRoster, replay: ReplayGuard, learnsSiblings: Bool = false) {
        self.keys = keys
        self.roster = roster
        self.replay = replay
        self.learnsSiblings = learnsSiblings
    }

    /// The certificates of devices learned since the last call, each once, in the order learned.
    public func drainLearned() -> [SenderCertificate] {
        defer { learned.removeAll() }
        return learned
    }

    /// Frame ids the seen set holds.
    public var seenCount: Int { replay.count }

    /// Runs every check on `envelope` at `now` (milliseconds since 1970), counting and reporting
    /// a drop.
    public func open(_ envelope: [UInt8], now: Int64) -> EnvelopeVerdict {
        let verdict = check(envelope, now: now)
        switch verdict {
        case .accepted:
            acceptedCount += 1
        case .dropped(let reason):
            dropCounts[reason, default: 0] += 1
            events.append(.dropped(reason: reason, bytes: envelope.count))
        }
        return verdict
    }

    /// The events since the last call.
    public func drainEvents() -> [EnvelopeEvent] {
        defer { events.removeAll() }
        return events
    }

    /// The gate's free checks alone (1 and 2 above: size, outer version and wake class), which
    /// read three numbers of the envelope and nothing else: the reason the gate would drop
    /// `envelope` for at those checks, nil when it passes them. A host may run them where the
    /// bytes arrive (counting the refusals itself) and hand `open` only what passes; `open` runs
    /// them again first.
    public static func freeCheck(_ envelope: [UInt8]) -> EnvelopeDropReason? {
        guard envelope.count <= EnvelopeFormat.maxEnvelopeBytes else { return .oversized }
        guard envelope.count >= EnvelopeFormat.minEnvelopeBytes else { return .truncated }
        guard envelope[0] == EnvelopeFormat.version, WakeClass(rawValue: envelope[1]) != nil else { return .unknownFormat }
        return nil
    }

    private func check(_ envelope: [UInt8], now: Int64) -> EnvelopeVerdict {
        if let reason = Self.freeCheck(envelope) { return .dropped(reason) }
        guard let keys else { return .dropped(.noKeyMaterial) }
        guard let plaintext = Sodium.open(envelope[EnvelopeFormat.outerHeaderBytes...], publicKey: keys.deviceKeys.envelopePublicKey,
                                          secretKey: keys.deviceKeys.envelopeSecretKey) else { return .dropped(.unopenable) }
        guard let inside = EnvelopeFormat.parseInside(plaintext) else { return .dropped(.malformed) }
        let certificate = inside.certificate
        guard certificate.userIDHash == keys.userIDHash else { return .dropped(.foreignAccount) }
        guard certificate.verify(issuer: keys.issuerPublicKey) else { return .dropped(.badCertificate) }
        guard !certificate.isExpired(atMillis: now) else { return .dropped(.expiredCertificate) }
        guard Sodium.verifyTag(inside.mac, of: inside.authenticated, key: keys.channel.mac) else { return .dropped(.badMAC) }
        let known = roster.contains(certificate.device)
        guard certificate.device != keys.device, known || learnsSiblings else { return .dropped(.notASibling) }
        guard Sodium.verify(inside.signature, of: EnvelopeFormat.signedMessage(inside.signed),
                            publicKey: certificate.device.publicKey) else { return .dropped(.badSignature) }
        guard inside.recipient == keys.device else { return .dropped(.misaddressed) }
        switch replay.admit(frameID: inside.frameID, timestamp: inside.timestamp, now: now) {
        case .fresh:
            if !known, let grown = try? roster.adding(certificate, for: keys) {
                roster = grown
                learned.append(certificate)
            }
            return .accepted(OpenedEnvelope(sender: certificate.device, account: certificate.userIDHash, frame: inside.frame,
                                            frameID: inside.frameID, timestamp: inside.timestamp))
        case .replayed: return .dropped(.replayed)
        case .outsideWindow: return .dropped(.outsideWindow)
        case .unavailable: return .dropped(.replayStoreUnavailable)
        }
    }
}
