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

extension RangeListing {
    /// An estimate of the listing's encoded size, at least the bytes it takes on the wire.
    package var encodedSize: Int {
        range.lo.count + (range.hi?.count ?? 0) + 24 + leaves.reduce(0) { $0 + $1.key.count + 44 }
    }

    /// What decoding the listing keeps beyond `DecodeBudget.bytesPerInputByte` per wire byte,
    /// for `ReconcileResponse.split`.
    package var decodeExcess: Int {
        let perByte = DecodeBudget.bytesPerInputByte
        var kept = MemoryLayout<RangeListing>.stride + DecodeBudget.arrayBytes(stride: 1, count: range.lo.count)
            + DecodeBudget.arrayBytes(stride: 1, count: range.hi?.count ?? 0)
            + DecodeBudget.arrayBytes(stride: MemoryLayout<Leaf>.stride, count: leaves.count)
        var wire = 4 + range.lo.count + (range.hi?.count ?? 0)
        for leaf in leaves {
            kept += DecodeBudget.arrayBytes(stride: 1, count: leaf.key.count) + DecodeBudget.arrayBytes(stride: 1, count: leaf.hash.count)
            wire += 3 + leaf.key.count + leaf.hash.count
        }
        return kept - perByte * wire
    }
}
