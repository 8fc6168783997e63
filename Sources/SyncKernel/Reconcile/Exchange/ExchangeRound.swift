/// The namespace a round starts for and the digests that showed it divergent.
///
/// Invariant: `theirs` decoded against this store's schema and names, so its roots are parallel
/// to `store.namespaces.names`, as are `theirChanges` (empty when the layout carries none) and
/// `counters`.
package struct ExchangeRound: Sendable {
    /// The divergent namespace.
    package let namespace: String
    /// The sibling's digest.
    package let theirs: StateDigest
    /// The sibling's change counters, sent with its digest.
    package let theirChanges: [UInt64]
    /// This store's change counters now.
    package let counters: [UInt64]


    /// A round for `namespace`, from the sibling's digest and counters and this store's counters.
    package init(namespace: String, theirs: StateDigest, theirChanges: [UInt64], counters: [UInt64]) {
        self.namespace = namespace
        self.theirs = theirs
        self.theirChanges = theirChanges
        self.counters = counters
    }

    /// The sibling's root of `namespace`, or nil for a name the digest does not hold.
    package var theirRoot: [UInt8]? {
        theirs.namespaces.firstIndex(of: namespace).map { theirs.roots[$0] }
    }
}
