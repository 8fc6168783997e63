import SyncKernel

/// Why a sibling refused a sign-in request without asking its user: the body of a refusal reply
/// (`JoinReply.refused`), one byte.
///
/// Invariants: sent only for a request that passed every authenticity rung of the ladder (it
/// opened, its certificate verified, was unexpired and named the account's identity, its
/// timestamp was fresh and its id new), never for any other message; each byte value is stable
/// (1 spent, 2 revoked, 3 busy) and no other parses; a refusal carries no data of the request.
public enum SignInRefusal: UInt8, Sendable, Hashable, CaseIterable {
    /// The credential admitted a device already (each admits one).
    case spent = 1
    /// The credential was revoked before it was used.
    case revoked = 2
    /// As many requests as a sibling keeps wait for a decision already, with this credential or
    /// in all.
    case busy = 3

    /// What the new device's user is told (the error's detail when the wait ends so).
    public var explanation: String {
        switch self {
        case .spent:
            "a sibling refused the sign-in credential: it admitted a device already (each credential admits one); "
                + "make a new one with `synckernel account sign-in-cert`; nothing was stored"
        case .revoked:
            "a sibling refused the sign-in credential: it was revoked; make a new one with `synckernel account sign-in-cert`; "
                + "nothing was stored"
        case .busy:
            "a sibling refused the request: too many requests wait for a decision there already (someone else may hold "
                + "this credential); nothing was stored"
        }
    }

    /// The drop reason a sibling counts the refusal under.
    public var dropReason: SignInDropReason {
        switch self {
        case .spent: .credentialSpent
        case .revoked: .credentialRevoked
        case .busy: .credentialBusy
        }
    }

    /// The stable word events and logs show: `spent`, `revoked` or `busy`.
    public var word: String {
        switch self {
        case .spent: "spent"
        case .revoked: "revoked"
        case .busy: "busy"
        }
    }
}
