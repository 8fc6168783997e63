import SyncKernel

/// Why the gate dropped an envelope, in the order the gate checks.
///
/// Invariants: every code (`SE101`...) is stable: never renumbered, never reused for another
/// reason, so hosts may count, persist or match on it; `all` lists every reason in code order,
/// which is the order of the gate's checks (the first failing check names the drop); a reason
/// carries no data from the envelope. Description ("SE101 oversized"), equality and lookup by
/// code string come from `StableCode`.
public struct EnvelopeDropReason: StableCode {
    /// The stable code string, for example "SE101".
    public let rawValue: String
    /// The symbolic name, for example "oversized".
    public let name: String

    private init(_ rawValue: String, _ name: String) {
        self.rawValue = rawValue
        self.name = name
    }

    /// Longer than `SealedEnvelope.maxBytes`: dropped before anything is decrypted.
    public static let oversized = EnvelopeDropReason("SE101", "oversized")
    /// Shorter than the smallest envelope (the fixed overhead): dropped before anything is decrypted.
    public static let truncated = EnvelopeDropReason("SE102", "truncated")
    /// An outer format version or wake class this build does not know.
    public static let unknownFormat = EnvelopeDropReason("SE103", "unknownFormat")
    /// This device holds no key material (fail closed: nothing is opened).
    public static let noKeyMaterial = EnvelopeDropReason("SE104", "noKeyMaterial")
    /// The sealed box does not open with this device's key: sealed to another device, or damaged.
    public static let unopenable = EnvelopeDropReason("SE105", "unopenable")
    /// The opened inside is not the format: too short, another version, an unreadable certificate.
    public static let malformed = EnvelopeDropReason("SE106", "malformed")
    /// The certificate names another account's userIDHash.
    public static let foreignAccount = EnvelopeDropReason("SE107", "foreignAccount")
    /// The certificate does not verify under this account's issuer key (forged or altered).
    public static let badCertificate = EnvelopeDropReason("SE108", "badCertificate")
    /// The certificate has expired at this device's clock.
    public static let expiredCertificate = EnvelopeDropReason("SE109", "expiredCertificate")
    /// The MAC does not verify under the sibling channel key (a sender without the account seed,
    /// or altered bytes).
    public static let badMAC = EnvelopeDropReason("SE110", "badMAC")
    /// The certificate's device is not in this device's roster (or is this device itself).
    public static let notASibling = EnvelopeDropReason("SE111", "notASibling")
    /// The sender's signature does not verify under the certificate's device key (a sibling
    /// presenting another device's certificate).
    public static let badSignature = EnvelopeDropReason("SE112", "badSignature")
    /// The inside names another recipient: a sibling re-sealed an envelope it opened.
    public static let misaddressed = EnvelopeDropReason("SE113", "misaddressed")
    /// The timestamp is outside the replay window (older, or further ahead than the window's
    /// allowance), or not after the oldest frame id the bounded seen set gave up.
    public static let outsideWindow = EnvelopeDropReason("SE114", "outsideWindow")
    /// The frame id was seen before (also before a restart: the seen set is on disk); for a
    /// session envelope, its counter was accepted before or lies below its session's window.
    public static let replayed = EnvelopeDropReason("SE115", "replayed")
    /// The seen set could not record the frame id, so a replay could not be ruled out later.
    public static let replayStoreUnavailable = EnvelopeDropReason("SE116", "replayStoreUnavailable")
    /// A session envelope under an index this device holds no session for: the session ended
    /// (a restart of this device, a renewal that pushed it out), or it never existed.
    public static let unknownSession = EnvelopeDropReason("SE117", "unknownSession")
    /// A session envelope of a session past its lifetime and grace (`SessionPolicy`).
    public static let sessionExpired = EnvelopeDropReason("SE118", "sessionExpired")
    /// A session envelope whose AEAD tag does not verify under its session's key (altered bytes,
    /// or forged by someone without the key).
    public static let badSessionTag = EnvelopeDropReason("SE119", "badSessionTag")

    /// Every reason, in the gate's order (a session envelope's own checks, SE117 to SE119, come
    /// after a whole envelope's). Codes are stable, so a check moved to run earlier (expiry and
    /// the MAC now precede the certificate's signature) keeps its code.
    public static let all: [EnvelopeDropReason] = [
        oversized, truncated, unknownFormat, noKeyMaterial, unopenable, malformed, foreignAccount,
        expiredCertificate, badMAC, badCertificate, notASibling, badSignature, misaddressed, outsideWindow, replayed, replayStoreUnavailable,
        unknownSession, sessionExpired, badSessionTag,
    ]
}
