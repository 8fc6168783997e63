/// The responder's own leaves in one large mismatching range: keys and leaf hashes, no rows.
///
/// Invariant: `leaves` are sorted by key and all lie in `range`. The requester diffs them against
/// its own leaves and asks for exactly the rows whose leaves differ, instead of receiving every
/// row of the range (the spec's coarse bucket over-ships up to `ceil(n / 256)` rows per change).
package struct RangeListing: Sendable, Hashable {
    /// The range listed.
    package let range: KeyRange
    /// The responder's leaves in the range.
    package let leaves: [Leaf]

    /// Creates a listing.
    package init(range: KeyRange, leaves: [Leaf]) {
        self.range = range
        self.leaves = leaves
    }
}
