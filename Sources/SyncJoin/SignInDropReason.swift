import SyncKernel

/// Why a sibling dropped a sign-in request, in the order of the guard ladder, or a notice of
/// another member. A drop for SJ101 to SJ111 and SJ116 is silent (nothing is sent back: the
/// message did not prove possession of a valid credential); SJ112 to SJ115 come after every
/// authenticity rung passed and are answered with a sealed refusal (`SignInRefusal`) the
/// requester can tell its user. Every drop is counted by reason and reported once.
///
/// Invariants: every code (`SJ101`...) is stable: never renumbered, never reused for another
/// reason, so hosts may count, persist or match on it; `all` lists every reason in code order;
/// SJ101 to SJ111 are the ladder's rungs in order (the first failing rung names the drop), and
/// a request that passed them all is then checked against the ledger (SJ117 when it cannot be
/// read, then SJ113, SJ114), the bound per credential (SJ115) and the bound in all (SJ112); a
/// reason carries no data from the request. Description ("SJ101 undecodable"), equality and lookup by code
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
    /// user's decision (refused as `busy`).
    public static let approvalsFull = SignInDropReason("SJ112", "approvalsFull")
    /// Every rung passed, but the sibling's sign-in ledger marks the credential spent: it
    /// admitted a device already (refused as `spent`).
    public static let credentialSpent = SignInDropReason("SJ113", "credentialSpent")
    /// Every rung passed, but the ledger marks the credential revoked (refused as `revoked`).
    public static let credentialRevoked = SignInDropReason("SJ114", "credentialRevoked")
    /// Every rung passed, but as many requests with this credential as a sibling keeps
    /// (`maxPendingPerCredential`) already wait (refused as `busy`), so one leaked credential
    /// cannot crowd out another's request.
    public static let credentialBusy = SignInDropReason("SJ115", "credentialBusy")
    /// A message with a notice's tag that does not open as a notice of this account's members
    /// (dropped silently, nothing applied).
    public static let badNotice = SignInDropReason("SJ116", "badNotice")
    /// Every rung passed, but the sign-in ledger could not be read, so a spent or revoked
    /// credential could not be ruled out (dropped silently: fail closed).
    public static let ledgerUnavailable = SignInDropReason("SJ117", "ledgerUnavailable")

    /// Every reason, in code order (the ladder's order).
    public static let all: [SignInDropReason] = [
        undecodable, unopenable, noPinnedVerifier, badCertificate, expiredCertificate, noOwnCertificate, otherIdentity,
        staleTimestamp, futureTimestamp, replayed, replayStoreUnavailable, approvalsFull, credentialSpent, credentialRevoked,
        credentialBusy, badNotice, ledgerUnavailable,
    ]
}
