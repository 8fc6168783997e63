/// Builds range fingerprints (`bucketize`) and finds the ranges a peer's fingerprints miss.
///
/// Invariants: the buckets of one `bucketize` call tile the whole key space (the first `lo` is
/// empty, the last `hi` is nil, each `hi` is the next bucket's `lo`), so any key a responder
/// holds falls in exactly one bucket; a boundary is the shortest prefix of a bucket's first key
/// that still sorts after the previous bucket's last key, so it splits the requester's leaves
/// exactly as the full key would while costing a byte or two on the wire; at or below `fineThreshold` leaves every bucket holds one
/// leaf, above it each holds `ceil(n / fineThreshold)` leaves (the last may hold fewer).
package enum Bucketizer {
    /// The leaf count up to which every row gets a bucket of its own.
    package static let fineThreshold = 256

    /// The range fingerprints of `index`, for a `reconcile_req`.
    package static func bucketize(_ index: SortedLeaves) -> [RangeBucket] {
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
            let lo = position == 0 ? [] : separator(after: leaves[starts[position] - 1].key, upTo: leaves[starts[position]].key)
            let hi = position + 2 < starts.count
                ? separator(after: leaves[starts[position + 1] - 1].key, upTo: leaves[starts[position + 1]].key) : nil
            buckets.append(RangeBucket(range: KeyRange(lo: lo, hi: hi),
                                       root: MerkleTree.root(group.lazy.map(\.hash)),
                                       count: group.count))
        }
        return buckets
    }

    /// The shortest prefix of `next` that sorts after `previous`: a bucket boundary that keeps
    /// every leaf on the same side as the full key would, in a byte or two for random keys.
    static func separator(after previous: [UInt8], upTo next: [UInt8]) -> [UInt8] {
        for length in 1...max(next.count, 1) where length <= next.count {
            let prefix = Array(next.prefix(length))
            if previous.lexicographicallyPrecedes(prefix) { return prefix }
        }
        return next
    }

    /// The ranges among `buckets` whose root or count differs over `index`'s own leaves.
    package static func mismatchingRanges(_ buckets: [RangeBucket], over index: SortedLeaves) -> [KeyRange] {
        buckets.compactMap { bucket in
            let mine = index.leaves(in: bucket.range)
            guard mine.count == bucket.count, MerkleTree.root(mine.lazy.map(\.hash)) == bucket.root else {
                return bucket.range
            }
            return nil
        }
    }
}
