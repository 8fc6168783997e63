import SyncKernel

/// Where two stores differ: per namespace, the keys whose structure items differ (each side's
/// leaf, or conflict item while it keeps live versions), with what each side holds for them.
///
/// Invariants: a key differs exactly when the two stores' digests would count it as differing
/// (the items the set-hash structure holds: a synced row's leaf, or its conflict item), so an
/// empty diff means equal roots in every namespace both hold; a namespace only one store holds is
/// listed whole; keys are in key order and namespaces in name order.
struct StoreDiff {
    /// One key that differs, with what each side holds (nil: nothing at all).
    struct KeyDifference {
        /// The key.
        let key: [UInt8]
        /// What the first store holds.
        let a: StoredKey?
        /// What the second store holds.
        let b: StoredKey?
    }

    /// One namespace where the stores differ.
    struct NamespaceDifference {
        /// The namespace.
        let name: String
        /// Whether the first store holds the namespace at all.
        let inA: Bool
        /// Whether the second store holds the namespace at all.
        let inB: Bool
        /// The keys that differ.
        let keys: [KeyDifference]
    }

    /// The namespaces where the stores differ.
    let namespaces: [NamespaceDifference]

    /// Whether the stores hold the same items in every namespace.
    var isEqual: Bool { namespaces.isEmpty }

    /// Compares the stores `a` and `b` read through `StoreReader`s.
    init(_ a: StoreReader, _ b: StoreReader) throws(SyncKernelError) {
        var out: [NamespaceDifference] = []
        for name in Set(a.namespaces).union(b.namespaces).sorted() {
            let (inA, inB) = (a.namespaces.contains(name), b.namespaces.contains(name))
            let left = inA ? try a.keys(namespace: name) : []
            let right = inB ? try b.keys(namespace: name) : []
            let byKeyA = Dictionary(left.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
            let byKeyB = Dictionary(right.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
            var keys: [KeyDifference] = []
            for key in Set(byKeyA.keys).union(byKeyB.keys).sorted(by: [UInt8].keyPrecedes) where byKeyA[key]?.item != byKeyB[key]?.item {
                keys.append(KeyDifference(key: key, a: byKeyA[key], b: byKeyB[key]))
            }
            if !keys.isEmpty || inA != inB { out.append(NamespaceDifference(name: name, inA: inA, inB: inB, keys: keys)) }
        }
        namespaces = out
    }
}
