import SyncKernel

/// Where two stores differ: per namespace, the keys whose structure items differ (each side's
/// leaf, or conflict item while it keeps live versions), with what each side holds for them.
///
/// Invariants: a key differs exactly when the two stores' digests would count it as differing
/// (the items the set-hash structure holds: a synced row's leaf, or its conflict item), so an
/// empty diff means equal roots in every namespace both hold; a namespace only one store holds is
/// listed whole; keys are in key order and namespaces in name order.
struct StoreDiff {
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
    /// How each namespace both stores hold was compared.
    let routes: [String: StructureComparison.Route]

    /// Whether the stores hold the same items in every namespace.
    var isEqual: Bool { namespaces.isEmpty }

    /// Compares the stores `a` and `b` read through `StoreReader`s: a namespace both hold through
    /// its persisted structures (`StructureComparison`), one only one holds by every key it holds.
    init(_ a: StoreReader, _ b: StoreReader) throws(SyncKernelError) {
        var out: [NamespaceDifference] = []
        var routes: [String: StructureComparison.Route] = [:]
        for name in Set(a.namespaces).union(b.namespaces).sorted() {
            let (inA, inB) = (a.namespaces.contains(name), b.namespaces.contains(name))
            let keys: [KeyDifference]
            if inA && inB {
                let comparison = try StructureComparison.compare(a, b, namespace: name)
                (keys, routes[name]) = (comparison.keys, comparison.route)
            } else {
                keys = KeyDifference.listing(inA ? try a.keys(namespace: name) : [], inB ? try b.keys(namespace: name) : [])
            }
            if !keys.isEmpty || inA != inB { out.append(NamespaceDifference(name: name, inA: inA, inB: inB, keys: keys)) }
        }
        namespaces = out
        self.routes = routes
    }
}
