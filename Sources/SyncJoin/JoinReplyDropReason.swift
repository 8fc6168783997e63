import SyncKernel

/// Why a device asking to join dropped a message on its reply subject. A dropped reply changes
/// nothing: the device keeps waiting as before, and stores nothing.
///
/// Invariants: every code (`SJ201`...) is stable: never renumbered, never reused for another
/// reason; `all` lists every reason in code order, which is the order of the checks; a reason
/// carries no data from the reply. Description, equality and lookup by code string come from
/// `StableCode`.
public struct JoinReplyDropReason: StableCode {
    /// The stable code string, for example "SJ202".
    public let rawValue: String
    /// The symbolic name, for example "undecodable".
    public let name: String

    private init(_ rawValue: String, _ name: String) {
        self.rawValue = rawValue
        self.name = name
    }

    /// A reply after the wait ended (granted, rejected or timed out): nothing changes any more,
    /// and nothing of it is decrypted.
    public static let afterOutcome = JoinReplyDropReason("SJ201", "afterOutcome")
    /// A size out of bounds or another version, before anything is decrypted.
    public static let undecodable = JoinReplyDropReason("SJ202", "undecodable")
    /// The box does not open with this request's ephemeral key and the account's discovery key:
    /// sealed to another request, altered, or made by someone without the account's seed.
    public static let unopenable = JoinReplyDropReason("SJ203", "unopenable")
    /// The opened reply is not the layout: an unknown kind, a field out of bounds, trailing bytes.
    public static let malformed = JoinReplyDropReason("SJ204", "malformed")
    /// The reply answers another request id.
    public static let otherRequest = JoinReplyDropReason("SJ205", "otherRequest")
    /// A grant that does not hold together: its seed does not derive the discovery key the
    /// request was sealed to, its certificate is not this device's, issued by its account and
    /// unexpired, its sign-in key did not make the certificate this device presented, or a
    /// sibling's certificate is not the account's.
    public static let invalidGrant = JoinReplyDropReason("SJ206", "invalidGrant")

    /// Every reason, in code order.
    public static let all: [JoinReplyDropReason] = [afterOutcome, undecodable, unopenable, malformed, otherRequest, invalidGrant]
}
