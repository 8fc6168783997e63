import SyncKernel

/// Why a sibling dropped a sign-in request, in the order of the guard ladder. Every drop is
/// silent (the requester is sent nothing), counted by reason and reported once.
///
/// Invariants: every code (`SJ101`...) is stable: never renumbered, never reused for another
/// reason, so hosts may count, persist or match on it; `all` lists every reason in code order,
/// which is the order of the ladder (the first failing rung names the drop); a reason carries
/// no data from the request. Description ("SJ101 undecodable"), equality and lookup by code
/// string come from `StableCode`.
public struct SignInDropReason: StableCode {
    /// The stable code string, for example "SJ101".
    public let rawValue: String
    /// The symbolic name, for example "undecodable".
    public let name: String

    private init(_ rawValue: String, _ name: String) {
        self.rawValue = rawValue
        self.name = name
    }

    /// Not a request's layout: another size or version (before anything is decrypted), or an
    /// inside whose fields do not parse (a name, its padding, a certificate, a deadline).
    public static let undecodable = SignInDropReason("SJ101", "undecodable")
    /// The sealed box does not open with this account's discovery key: sealed to another
    /// account, or damaged.
    public static let unopenable = SignInDropReason("SJ102", "unopenable")
    /// This device pins no sign-in verifier key, so it cannot check the certificate: fail closed.
    public static let noPinnedVerifier = SignInDropReason("SJ103", "noPinnedVerifier")
    /// The certificate does not verify under the pinned verifier key: forged, altered, or made
    /// by another verifier.
    public static let badCertificate = SignInDropReason("SJ104", "badCertificate")
    /// The certificate has expired at this device's clock.
    public static let expiredCertificate = SignInDropReason("SJ105", "expiredCertificate")
    /// This device holds no sign-in certificate of its own (one that verifies under the pinned
    /// key) to compare identities with.
    public static let noOwnCertificate = SignInDropReason("SJ106", "noOwnCertificate")
    /// The certificate names another sign-in identity than this device's own.
    public static let otherIdentity = SignInDropReason("SJ107", "otherIdentity")
    /// The timestamp is more than the window (120 s) older than this device's clock.
    public static let staleTimestamp = SignInDropReason("SJ108", "staleTimestamp")
    /// The timestamp is more than the window (120 s) ahead of this device's clock.
    public static let futureTimestamp = SignInDropReason("SJ109", "futureTimestamp")
    /// The request id was seen before (also before a restart: the seen set is on disk), or is
    /// not newer than the ids the bounded seen set gave up.
    public static let replayed = SignInDropReason("SJ110", "replayed")
    /// The seen set could not record the request id, so a replay could not be ruled out later.
    public static let replayStoreUnavailable = SignInDropReason("SJ111", "replayStoreUnavailable")
    /// Every rung passed, but as many requests as the sibling keeps are already waiting for its
    /// user's decision.
    public static let approvalsFull = SignInDropReason("SJ112", "approvalsFull")

    /// Every reason, in code order (the ladder's order).
    public static let all: [SignInDropReason] = [
        undecodable, unopenable, noPinnedVerifier, badCertificate, expiredCertificate, noOwnCertificate, otherIdentity,
        staleTimestamp, futureTimestamp, replayed, replayStoreUnavailable, approvalsFull,
    ]
}
