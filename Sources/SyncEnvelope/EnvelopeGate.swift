import SyncKernel

/// The self-gate: what a device runs on every envelope from the relay before any byte of the
/// frame inside is parsed. A host runs it first and hands only an accepted envelope's frame to
/// `ReplicaHost.receive` (or `Replica.receive`), with the sender it names (`SealedReceiver`
/// does exactly that).
///
/// The checks, in order; the first that fails drops the envelope with its reason (1 to 12 are its
/// stateless stage, `EnvelopeOpener`, which a host may run where the bytes arrive and hand the
/// result to `admit`; 13 needs the seen set and runs here):
/// 1. size, on the raw bytes before anything is decrypted: above `SealedEnvelope.maxBytes`
///    `oversized`, below the fixed overhead `truncated`;
/// 2. the outer version and wake class (`unknownFormat`);
/// 3. key material: none, `noKeyMaterial` (fail closed);
/// 4. the sealed box opens with this device's envelope key (`unopenable`: sealed to another
///    device, or damaged);
/// 5. the inside's layout and its certificate's encoding (`malformed`);
/// 6. the certificate's userIDHash is this device's own (`foreignAccount`);
/// 7. it has not expired at `now` (`expiredCertificate`);
/// 8. the MAC verifies under the sibling channel key (`badMAC`): a keyed hash, before any
///    signature is verified, so a sender without the account's seed costs one sealed-box open;
/// 9. the certificate verifies under the account's issuer key (`badCertificate`);
/// 10. the certificate's device is not this device, and is a sibling in the roster or, for a gate
///     that learns siblings (`learnsSiblings`), any other device: its certificate already
///     verified under this account's issuer, names this account and has not expired, and the MAC
///     under the account's channel key verified (`notASibling`);
/// 11. the sender's signature verifies under that device's key (`badSignature`);
/// 12. the inside names this device as the recipient (`misaddressed`);
/// 13. the timestamp is inside the replay window (`outsideWindow`), the frame id is new
///     (`replayed`), and the seen set recorded it (`replayStoreUnavailable`).
///
/// A session envelope (a gate made with a `SessionPolicy`) is checked by the opener against its
/// session instead (`SessionReceiver`: `unknownSession`, `sessionExpired`, `expiredCertificate`,
/// `replayed` by its counter window, `badSessionTag`) and skips the seen set: no frame id is
/// recorded, so no write to disk is paid per frame. A short handshake envelope (outer version 3,
/// `HandshakeFormat`, read only by a gate with a session policy: `unknownFormat` otherwise) is
/// checked by the opener against the roster's certified keys instead of checks 4 to 12
/// (`notASibling`, `unopenable`, `malformed`, `expiredCertificate`) and then passes the seen set
/// as a whole envelope does.
///
/// Invariants: every envelope is either accepted or dropped with exactly one reason; each drop
/// the gate sees is counted under its reason (`dropCounts`) and reported once as an
/// `EnvelopeEvent.dropped` (`drainEvents()`); the gate never parses a frame (no `SyncFrame`
/// decoding happens here, and a dropped frame is never returned), never traps on any input, and
/// records a frame id only for an envelope that passed every other check. A learning gate adds a
/// device outside its roster only once an envelope of it passed every check, signature and seen
/// set included, and hands its certificate to the host once (`drainLearned()`); a gate that does
/// not learn never changes its roster. Not `Sendable`: one owner runs it (it holds the seen set's
/// SQLite connection); its `opener` is, and may run on other threads meanwhile.
public final class EnvelopeGate {
    /// The stateless stage, sharing this gate's keys and roster.
    public let opener: EnvelopeOpener
    private let replay: ReplayGuard
    private var learned: [SenderCertificate] = []
    /// Envelopes dropped so far, by reason (only those this gate saw: `open`'s and `admit`'s).
    public private(set) var dropCounts: [EnvelopeDropReason: Int] = [:]
    /// Envelopes accepted so far.
    public private(set) var acceptedCount = 0
    private var events: [EnvelopeEvent] = []

    /// A gate for the device holding `keys` (nil: none), accepting the siblings of `roster`
    /// (and, when `learnsSiblings`, learning any other device this account certified), recording
    /// frame ids in `replay`.
    public init(keys: EnvelopeKeys?, roster: SiblingRoster, replay: ReplayGuard, learnsSiblings: Bool = false) {
        opener = EnvelopeOpener(keys: keys, roster: roster, learnsSiblings: learnsSiblings, window: replay.window)
        self.replay = replay
    }

    /// A gate as above that also accepts session envelopes under `sessions` (the same policy as
    /// the device's sealer), the keys and indices of its receiving sessions drawn from `entropy`.
    public init(keys: EnvelopeKeys?, roster: SiblingRoster, replay: ReplayGuard, learnsSiblings: Bool = false,
                sessions: SessionPolicy, entropy: sending EntropySource = .system) {
        opener = EnvelopeOpener(keys: keys, roster: roster, learnsSiblings: learnsSiblings, window: replay.window,
                                sessions: sessions, entropy: entropy)
        self.replay = replay
    }

    /// This device's keys; nil when it has none (every envelope is then dropped).
    public var keys: EnvelopeKeys? { opener.keys }

    /// The siblings whose envelopes are accepted (a learning gate's grows).
    public var roster: SiblingRoster { opener.roster }

    /// Whether a certified device of this account outside the roster is accepted and learned.
    public var learnsSiblings: Bool { opener.learnsSiblings }

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
        switch opener.check(envelope, now: now) {
        case .passed(let checked): return admit(checked, now: now)
        case .dropped(let reason): return drop(reason, bytes: envelope.count)
        }
    }

    /// Runs the seen set's check (13) on an envelope `opener` passed, at `now`, counting and
    /// reporting a drop; learns its sender when it is new to a learning gate. A host that queued
    /// the envelope after its check passes `checked.checkedAt`, so the window is judged where the
    /// envelope arrived and a wait behind a busy inbox never makes a frame late.
    public func admit(_ checked: CheckedEnvelope, now: Int64) -> EnvelopeVerdict {
        if checked.viaSession {
            acceptedCount += 1
            return .accepted(OpenedEnvelope(sender: checked.certificate.device, account: checked.certificate.userIDHash,
                                            frame: checked.frame, frameID: [], timestamp: checked.timestamp))
        }
        let floor = replay.floor
        let admission = replay.admit(frameID: checked.frameID, timestamp: checked.timestamp, now: now)
        if replay.floor != floor { opener.forget(atOrBelow: replay.floor) }
        switch admission {
        case .fresh:
            if checked.timestamp > replay.floor { opener.remember(checked) }
            let certificate = checked.certificate
            if opener.learn(certificate) { learned.append(certificate) }
            acceptedCount += 1
            return .accepted(OpenedEnvelope(sender: certificate.device, account: certificate.userIDHash, frame: checked.frame,
                                            frameID: checked.frameID, timestamp: checked.timestamp, viaHandshake: checked.viaHandshake))
        case .replayed: return drop(.replayed, bytes: checked.bytes)
        case .outsideWindow: return drop(.outsideWindow, bytes: checked.bytes)
        case .unavailable: return drop(.replayStoreUnavailable, bytes: checked.bytes)
        }
    }

    /// The events since the last call.
    public func drainEvents() -> [EnvelopeEvent] {
        defer { events.removeAll() }
        return events
    }

    private func drop(_ reason: EnvelopeDropReason, bytes: Int) -> EnvelopeVerdict {
        dropCounts[reason, default: 0] += 1
        events.append(.dropped(reason: reason, bytes: bytes))
        return .dropped(reason)
    }
}
