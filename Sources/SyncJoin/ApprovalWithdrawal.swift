import SyncKernel

/// Why a sibling withdrew an approval prompt before its user decided.
///
/// Invariants: every case is safe to print (a device name is letters, digits, `-` and `_`);
/// `word` is a stable word for events and logs.
public enum ApprovalWithdrawal: Sendable, Hashable {
    /// The sibling named `by` approved this request (its sealed notice said so).
    case approvedElsewhere(by: String)
    /// The sibling named `by` rejected this request.
    case rejectedElsewhere(by: String)
    /// The request's credential admitted another device meanwhile (a refusal was sent).
    case credentialSpent
    /// The request's credential was revoked meanwhile (a refusal was sent).
    case credentialRevoked

    /// `approved`, `rejected`, `spent` or `revoked`.
    public var word: String {
        switch self {
        case .approvedElsewhere: "approved"
        case .rejectedElsewhere: "rejected"
        case .credentialSpent: "spent"
        case .credentialRevoked: "revoked"
        }
    }

    /// The sibling that decided, for a decision made elsewhere.
    public var decider: String? {
        switch self {
        case .approvedElsewhere(let name), .rejectedElsewhere(let name): name
        case .credentialSpent, .credentialRevoked: nil
        }
    }
}
