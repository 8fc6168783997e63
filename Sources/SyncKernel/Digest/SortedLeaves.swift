/// A namespace's leaves sorted by key, read for one spec-mode exchange (the spec's bucketize and
/// Merkle root need every leaf in order; nothing keeps this list between exchanges).
///
/// Invariants: `leaves` is sorted by key with no repeated key.
package struct SortedLeaves: Sendable {
    /// The leaves, sorted by key.
    package let leaves: [Leaf]

    /// Creates a list over `leaves` in any order; a repeated key keeps the last leaf.
    package init(_ leaves: [Leaf] = []) {
        var byKey: [[UInt8]: Leaf] = [:]
        for leaf in leaves { byKey[leaf.key] = leaf }
        self.leaves = byKey.values.sorted { [UInt8].keyPrecedes($0.key, $1.key) }
    }

    /// A list over leaves the caller read in key order with no repeated key (checked).
    package init(sorted leaves: [Leaf]) {
        precondition(zip(leaves, leaves.dropFirst()).allSatisfy { [UInt8].keyPrecedes($0.key, $1.key) })
        self.leaves = leaves
    }

    /// The number of leaves.
    package var count: Int { leaves.count }

    /// The Merkle root over all leaves.
    package var root: [UInt8] { MerkleTree.root(leaves.lazy.map(\.hash)) }

    /// The leaf hash stored for `key`, if any.
    package func hash(for key: [UInt8]) -> [UInt8]? {
        let index = lowerBound(key)
        guard index < leaves.count, leaves[index].key == key else { return nil }
        return leaves[index].hash
    }

    /// The index of the first leaf whose key is not below `key`.
    package func lowerBound(_ key: [UInt8]) -> Int {
        var low = 0
        var high = leaves.count
        while low < high {
            let mid = (low + high) / 2
            if [UInt8].keyPrecedes(leaves[mid].key, key) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The leaves whose keys fall in `[lo, hi)` (`hi == nil` is unbounded above).
    package func leaves(in range: KeyRange) -> ArraySlice<Leaf> {
        let start = lowerBound(range.lo)
        let end = range.hi.map { lowerBound($0) } ?? leaves.count
        return leaves[start..<max(start, end)]
    }
}
