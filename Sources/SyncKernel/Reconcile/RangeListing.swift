/// The responder's own leaves in one large mismatching range: keys and leaf hashes, no rows.
///
/// Invariant: `leaves` are sorted by key and all lie in `range`. The requester diffs them against
/// its own leaves and asks for exactly the rows whose leaves differ, instead of receiving every
/// row of the range (the spec's coarse bucket over-ships up to `ceil(n / 256)` rows per change).
public struct RangeListing: Sendable, Hashable {
    /// The range listed.
    public let range: KeyRange
    /// The responder's leaves in the range.
    public let leaves: [Leaf]

    /// Creates a listing.
    public init(range: KeyRange, leaves: [Leaf]) {
        self.range = range
        self.leaves = leaves
    }
}

/// How a responder answers a mismatching range.
///
/// Invariant: `.shipRows` is the spec's behaviour (every row of the range); `.listAbove(n)` sends
/// a `RangeListing` for ranges holding more than `n` leaves, so the pair pays one extra round
/// trip to ship only the differing rows.
public enum ResponsePolicy: Sendable, Hashable {
    /// Ship every row of every mismatching range.
    case shipRows
    /// List the leaves of mismatching ranges with more than this many leaves; ship rows below it.
    case listAbove(Int)

    /// The default: list ranges of more than 8 leaves.
    public static let standard = ResponsePolicy.listAbove(8)
}
