/// Wanted keys named by the shortest prefix that tells them apart among the peer's keys.
///
/// Invariants: a prefix is computed only for a key the peer holds a synced row of (an item only
/// the peer holds, from a decoded sketch or a listing), from this store's synced keys around it
/// (minus those the difference says the peer lacks) and the other keys only the peer holds; so
/// when the difference is exact, the prefix starts exactly one of the peer's synced keys. A key
/// whose prefix would not be shorter than itself, or whose neighbours take more than
/// `neighborSteps` rows to find, stays a whole key. Reads two rows a key (an index seek each),
/// never a range of rows.
extension KernelStore {
    /// The most rows looked at on each side of a key while skipping device-derived rows and keys
    /// the peer lacks.
    static let neighborSteps = 16

    /// The prefix to want each of `keys` by, for the keys it shortens: `peerHolds` are the keys
    /// only the peer holds (not in this store), `peerLacks` this store's keys the peer lacks.
    func wantPrefixes(_ namespace: String, keys: Set<[UInt8]>, peerHolds: Set<[UInt8]>,
                      peerLacks: Set<[UInt8]>) throws(SyncKernelError) -> [[UInt8]: [UInt8]] {
        guard !keys.isEmpty else { return [:] }
        let others = peerHolds.sorted(by: [UInt8].keyPrecedes)
        var prefixes: [[UInt8]: [UInt8]] = [:]
        for key in keys {
            var shared = 0
            var exhausted = false
            for before in [true, false] {
                let found = try books.neighbor(namespace, of: key, before: before, maxSteps: KernelStore.neighborSteps) {
                    !peerLacks.contains($0)
                }
                exhausted = exhausted || found.exhausted
                if let neighbor = found.key { shared = max(shared, KernelStore.commonPrefix(key, neighbor)) }
            }
            let position = KernelStore.insertionIndex(of: key, in: others)
            for index in [position - 1, position, position + 1] where others.indices.contains(index) && others[index] != key {
                shared = max(shared, KernelStore.commonPrefix(key, others[index]))
            }
            guard !exhausted, shared + 1 < key.count else { continue }
            prefixes[key] = Array(key.prefix(shared + 1))
        }
        return prefixes
    }

    /// The keys of this store's synced rows each of `prefixes` starts, for a peer's
    /// `ReconcileResponse.wantPrefixes`: each prefix's keys when it starts at least one and at
    /// most `ReconcileResponse.maxPrefixMatches`, none for a prefix that starts more.
    func keys(wantedBy prefixes: [[UInt8]], namespace: String) throws(SyncKernelError) -> Set<[UInt8]> {
        var keys: Set<[UInt8]> = []
        for prefix in prefixes where !prefix.isEmpty {
            let matches = try books.syncedKeys(namespace, withPrefix: prefix, limit: ReconcileResponse.maxPrefixMatches + 1)
            if matches.count <= ReconcileResponse.maxPrefixMatches { keys.formUnion(matches) }
        }
        return keys
    }

    /// How many leading bytes `a` and `b` share.
    static func commonPrefix(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).prefix { $0 == $1 }.count
    }

    /// The index of the first of `sorted` (in key order) not before `key`.
    static func insertionIndex(of key: [UInt8], in sorted: [[UInt8]]) -> Int {
        var (low, high) = (0, sorted.count)
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle].lexicographicallyPrecedes(key) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
