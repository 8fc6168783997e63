/// Where two stores' copies of one namespace differ, found from their persisted structures so
/// that only the rows under differing keys are read (`synckernel diff`).
///
/// Invariants: the keys are exactly those `KeyDifference.listing` finds over every key of both
/// sides, with the same stored entries, in key order; the structures only choose which keys are
/// read. Equal roots mean equal items and read no row. Otherwise the keys of the decoded
/// difference of the two sketches are read, or when that does not decode or does not account for
/// the difference, the keys under the buckets whose fingerprints differ; a set of keys is taken
/// only when both set hashes, less the items read under those keys on their side, are equal (so
/// outside them the two item sets are equal). A structure that is missing, of another format or
/// unreadable, or keys that do not account for the difference, mean every key is compared.
/// Both files are read in one read-only transaction each, nothing is written.
package struct StructureComparison: Sendable {
    /// How the differing keys were found.
    package enum Route: Sendable, Equatable {
        /// The roots are equal: no key differs, no row was read.
        case equalRoots
        /// The keys of the decoded sketch difference.
        case sketch
        /// The keys under the buckets whose fingerprints differ.
        case buckets
        /// Every key of both sides (no usable structure, or the structure did not account).
        case everyKey
    }

    /// How the keys were found.
    package let route: Route
    /// The keys whose items differ, in key order.
    package let keys: [KeyDifference]

    /// Compares `namespace` in the stores `a` and `b`. Throws `unknownNamespace` when either file
    /// does not hold it, and what reading a file throws.
    package static func compare(_ a: StoreReader, _ b: StoreReader, namespace: String) throws(SyncKernelError) -> StructureComparison {
        guard a.namespaces.contains(namespace), b.namespaces.contains(namespace) else { throw SyncKernelError(.unknownNamespace) }
        return try a.reading { () throws(SyncKernelError) -> StructureComparison in
            try b.reading { () throws(SyncKernelError) -> StructureComparison in
                if let left = a.persistedStructure(namespace), let right = b.persistedStructure(namespace),
                   let found = try? throughStructures(left, right, a, b, namespace) {
                    return found
                }
                return StructureComparison(route: .everyKey, keys: KeyDifference.listing(try a.everyKey(namespace), try b.everyKey(namespace)))
            }
        }
    }

    /// The comparison through the structures `left` (of `a`) and `right` (of `b`), nil when
    /// neither the sketch nor the buckets account for the difference.
    private static func throughStructures(_ left: NamespaceStructure, _ right: NamespaceStructure, _ a: StoreReader,
                                          _ b: StoreReader, _ namespace: String) throws(SyncKernelError) -> StructureComparison? {
        guard left.root != right.root else { return StructureComparison(route: .equalRoots, keys: []) }
        if let difference = SketchDecoder.decode(remote: right.sketch.symbols, local: left.sketch.symbols[...]) {
            var itemsA: [[UInt8]: [UInt8]] = [:]
            var itemsB: [[UInt8]: [UInt8]] = [:]
            for key in Set((difference.remoteOnly + difference.localOnly).map(\.key)) {
                itemsA[key] = try a.read(key, namespace: namespace)?.item
                itemsB[key] = try b.read(key, namespace: namespace)?.item
            }
            if let keys = try differing(itemsA, itemsB, left, right, a, b, namespace) {
                return StructureComparison(route: .sketch, keys: keys)
            }
        }
        var itemsA: [[UInt8]: [UInt8]] = [:]
        var itemsB: [[UInt8]: [UInt8]] = [:]
        for bucket in 0..<PrefixNode.bucketCount where left.buckets[bucket] != right.buckets[bucket] {
            let range = PrefixNode.node(ofBucket: bucket).range
            itemsA.merge(try a.items(namespace, in: range)) { first, _ in first }
            itemsB.merge(try b.items(namespace, in: range)) { first, _ in first }
        }
        return try differing(itemsA, itemsB, left, right, a, b, namespace).map { StructureComparison(route: .buckets, keys: $0) }
    }

    /// The keys of `itemsA` and `itemsB` (the items each side holds under the keys read) whose
    /// items differ, read whole from both sides, in key order; nil when the set hashes less
    /// those items differ (the keys read do not account for the whole difference).
    private static func differing(_ itemsA: [[UInt8]: [UInt8]], _ itemsB: [[UInt8]: [UInt8]], _ left: NamespaceStructure,
                                  _ right: NamespaceStructure, _ a: StoreReader, _ b: StoreReader,
                                  _ namespace: String) throws(SyncKernelError) -> [KeyDifference]? {
        guard let restA = remainder(left, less: itemsA), let restB = remainder(right, less: itemsB), restA == restB else { return nil }
        var keys: [KeyDifference] = []
        for key in Set(itemsA.keys).union(itemsB.keys).sorted(by: [UInt8].keyPrecedes) where itemsA[key] != itemsB[key] {
            keys.append(KeyDifference(key: key, a: try a.read(key, namespace: namespace), b: try b.read(key, namespace: namespace)))
        }
        return keys
    }

    /// The root of `structure` with `items` taken out; nil for an item not of a hash's length
    /// (only a damaged store stores one, and its structure cannot hold it).
    private static func remainder(_ structure: NamespaceStructure, less items: [[UInt8]: [UInt8]]) -> [UInt8]? {
        guard items.allSatisfy({ $0.value.count == SHA256.byteCount }) else { return nil }
        var hash = structure.setHash
        for (key, item) in items { hash.apply(itemHash: Leaf(key: key, hash: item).itemHash, direction: -1) }
        return hash.root(count: structure.count - Int64(items.count))
    }
}
