/// The sorted leaves of one namespace, kept up to date by the store's write path.
///
/// Invariants: `leaves` is sorted by key with no repeated key; `root` always equals
/// `MerkleTree.root` over the current leaf hashes (recomputed lazily after a change).
package struct LeafIndex: Sendable {
    /// The leaves, sorted by key.
    package private(set) var leaves: [Leaf] = []
    private var cachedRoot: [UInt8]?

    /// Creates an index over `leaves` in any order; a repeated key keeps the last leaf.
    package init(_ leaves: [Leaf] = []) {
        var byKey: [[UInt8]: Leaf] = [:]
        for leaf in leaves { byKey[leaf.key] = leaf }
        self.leaves = byKey.values.sorted { [UInt8].keyPrecedes($0.key, $1.key) }
    }

    /// The number of leaves.
    package var count: Int { leaves.count }

    /// The Merkle root over all leaves.
    package mutating func root() -> [UInt8] {
        if let cachedRoot { return cachedRoot }
        let computed = MerkleTree.root(leaves.lazy.map(\.hash))
        cachedRoot = computed
        return computed
    }

    /// The leaf hash stored for `key`, if any.
    package func hash(for key: [UInt8]) -> [UInt8]? {
        let index = lowerBound(key)
        guard index < leaves.count, leaves[index].key == key else { return nil }
        return leaves[index].hash
    }

    /// Inserts or replaces the leaf for `leaf.key`; returns whether the stored hash changed.
    @discardableResult
    package mutating func upsert(_ leaf: Leaf) -> Bool {
        let index = lowerBound(leaf.key)
        if index < leaves.count, leaves[index].key == leaf.key {
            guard leaves[index].hash != leaf.hash else { return false }
            leaves[index] = leaf
        } else {
            leaves.insert(leaf, at: index)
        }
        cachedRoot = nil
        return true
    }

    /// Removes the leaf for `key`; returns whether one was present.
    @discardableResult
    package mutating func remove(_ key: [UInt8]) -> Bool {
        let index = lowerBound(key)
        guard index < leaves.count, leaves[index].key == key else { return false }
        leaves.remove(at: index)
        cachedRoot = nil
        return true
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
