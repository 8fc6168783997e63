/// Builds range fingerprints (`bucketize`) and finds the ranges a peer's fingerprints miss.
///
/// Invariants: the buckets of one `bucketize` call tile the whole key space (the first `lo` is
/// empty, the last `hi` is nil, each `hi` is the next bucket's `lo`), so any key a responder
/// holds falls in exactly one bucket; at or below `fineThreshold` leaves every bucket holds one
/// leaf, above it each holds `ceil(n / fineThreshold)` leaves (the last may hold fewer).
public enum Bucketizer {
    /// The leaf count up to which every row gets a bucket of its own.
    public static let fineThreshold = 256

    /// The range fingerprints of `index`, for a `reconcile_req`.
    public static func bucketize(_ index: LeafIndex) -> [RangeBucket] {
        let leaves = index.leaves
        guard !leaves.isEmpty else {
            return [RangeBucket(range: .all, root: MerkleTree.emptyRoot, count: 0)]
        }
        let groupSize = leaves.count <= fineThreshold ? 1 : (leaves.count + fineThreshold - 1) / fineThreshold
        var starts = Array(stride(from: 0, to: leaves.count, by: groupSize))
        starts.append(leaves.count)
        var buckets: [RangeBucket] = []
        buckets.reserveCapacity(starts.count - 1)
        for position in 0..<(starts.count - 1) {
            let group = leaves[starts[position]..<starts[position + 1]]
            let lo = position == 0 ? [] : leaves[starts[position]].key
            let hi = position + 2 < starts.count ? leaves[starts[position + 1]].key : nil
            buckets.append(RangeBucket(range: KeyRange(lo: lo, hi: hi),
                                       root: MerkleTree.root(group.lazy.map(\.hash)),
                                       count: group.count))
        }
        return buckets
    }

    /// The ranges among `buckets` whose root or count differs over `index`'s own leaves.
    public static func mismatchingRanges(_ buckets: [RangeBucket], over index: LeafIndex) -> [KeyRange] {
        buckets.compactMap { bucket in
            let mine = index.leaves(in: bucket.range)
            guard mine.count == bucket.count, MerkleTree.root(mine.lazy.map(\.hash)) == bucket.root else {
                return bucket.range
            }
            return nil
        }
    }
}
