/// What `StructureComparison` reads from a store's file: its persisted structures and the items
/// of a few keys or key ranges, inside one read-only transaction.
///
/// Invariants: nothing is written (the reader's connection is read-only); a structure that is
/// missing, of another format, unreadable, or in a file whose kept versions lack the columns
/// items are computed from, reads as nil, so the caller compares every key instead; an item is
/// computed exactly as `read` computes `StoredKey.item`.
extension StoreReader {
    /// Runs `body` inside one read-only transaction, so everything it reads is one committed state.
    func reading<Result>(_ body: () throws(SyncKernelError) -> Result) throws(SyncKernelError) -> Result {
        try db.transaction(writing: false, body)
    }

    /// The persisted structure of `namespace`, nil when it cannot be trusted to be read here.
    func persistedStructure(_ namespace: String) -> NamespaceStructure? {
        guard ["sk_structure", "sk_symbol", "sk_bucket", "sk_wide", "sk_journal"].allSatisfy(tables.contains), (try? versionColumns()) == true else {
            return nil
        }
        return try? NamespaceStructure.load(namespace, from: books)
    }

    /// The items of the synced rows of `namespace` in `range`, by key.
    func items(_ namespace: String, in range: KeyRange) throws(SyncKernelError) -> [[UInt8]: [UInt8]] {
        let conflicted = Set(try books.conflictedKeys(namespace, in: range))
        var items: [[UInt8]: [UInt8]] = [:]
        for leaf in try books.leaves(namespace, in: range) {
            items[leaf.key] = conflicted.contains(leaf.key)
                ? try StructureItems.item(leaf.key, leaf: leaf.hash, namespace: namespace, books: books) : leaf.hash
        }
        return items
    }
}
