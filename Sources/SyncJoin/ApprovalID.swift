import SyncKernel

/// The id a sibling gives a sign-in request waiting for its user's decision: what an
/// `approval_requested` event shows and an `approve ID` or `reject ID` line names.
///
/// Invariants: exactly 8 lower-case hex digits, drawn at random by the sibling (derived from
/// nothing in the request, so printing it reveals nothing about the request, the requester or
/// any key); unique among one sibling's pending requests.
public struct ApprovalID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Random bytes behind an id.
    package static let byteCount = 4

    /// The id: 8 lower-case hex digits.
    public let value: String

    /// The id of 4 random bytes.
    package init(bytes: [UInt8]) {
        value = Hex.encode(bytes.prefix(Self.byteCount))
    }

    /// The id `text` names (as typed after `approve` or `reject`): exactly 8 hex digits, either
    /// case; nil otherwise.
    public init?(parsing text: String) {
        guard text.utf8.count == 2 * Self.byteCount, let bytes = Hex.decode(text) else { return nil }
        value = Hex.encode(bytes)
    }

    /// Orders ids by their text.
    public static func < (lhs: ApprovalID, rhs: ApprovalID) -> Bool {
        lhs.value < rhs.value
    }

    /// The id itself.
    public var description: String { value }
}
