/// Reads the items a namespace's structure holds from the stored rows and kept versions: each
/// synced row's leaf, or its `ConflictItem` when the key is in conflict (it keeps a live version
/// of another leaf beside it; live versions of the visible row's own leaf, concurrent writes of
/// one content, are no conflict and leave the bare leaf).
///
/// Invariant: the items are the ones `RowWriter` moves into the structure, computed from the same
/// stored state the same way, so a structure rebuilt or rescanned from them equals the one the
/// writes kept. Only keys with kept live versions (found through the partial index over them)
/// cost more than their stored leaf: their content vector and the leaves stored beside their kept
/// versions; no row is decoded.
enum StructureItems {
    /// The items of `driver`'s namespace in key order, of the rows in `range` (every row when nil).
    static func items(_ driver: NamespaceDriver, books: Bookkeeping, in range: KeyRange? = nil) throws(SyncKernelError) -> [Leaf] {
        let leaves: [Leaf]
        if let range { leaves = try books.leaves(driver.name, in: range) } else { leaves = try books.leaves(driver.name) }
        guard driver.isCausal else { return leaves }
        let conflicted = Set(try books.conflictedKeys(driver.name, in: range))
        guard !conflicted.isEmpty else { return leaves }
        var items: [Leaf] = []
        items.reserveCapacity(leaves.count)
        for leaf in leaves {
            guard conflicted.contains(leaf.key) else {
                items.append(leaf)
                continue
            }
            items.append(Leaf(key: leaf.key, hash: try item(leaf.key, leaf: leaf.hash, driver: driver, books: books)))
        }
        return items
    }

    /// Hands every item of a namespace to `body` in key order, one at a time, streamed from the
    /// stored leaves (only the set of conflicted keys is gathered first).
    ///
    /// Invariant: `body` sees exactly the items `items(_:books:)` returns, in the same order.
    static func forEachItem(_ driver: NamespaceDriver, books: Bookkeeping,
                            _ body: (Leaf) throws(SyncKernelError) -> Void) throws(SyncKernelError) {
        let conflicted = driver.isCausal ? Set(try books.conflictedKeys(driver.name, in: nil)) : []
        try books.forEachLeaf(driver.name) { leaf throws(SyncKernelError) in
            guard conflicted.contains(leaf.key) else { return try body(leaf) }
            try body(Leaf(key: leaf.key, hash: try item(leaf.key, leaf: leaf.hash, driver: driver, books: books)))
        }
    }

    /// The item of `key`, whose visible row has `leaf`: the leaf, or the conflict item when the
    /// key keeps a live version of another leaf beside it (over every kept live version's stored
    /// leaf and vector, those of the visible leaf included; the visible content's vector is
    /// `contentVector` when given, else the stored one, and an undecodable stored RowVersion or
    /// kept vector counts as empty or absent).
    static func item(_ key: [UInt8], leaf: [UInt8], contentVector: VersionVector? = nil, driver: NamespaceDriver,
                     books: Bookkeeping) throws(SyncKernelError) -> [UInt8] {
        guard driver.isCausal else { return leaf }
        return try item(key, leaf: leaf, contentVector: contentVector, namespace: driver.name, books: books)
    }

    /// `item(_:leaf:contentVector:driver:books:)` by namespace name, for a reader that has no
    /// declaration (a namespace that keeps no versions has no kept entry, so its items are its
    /// leaves here too).
    static func item(_ key: [UInt8], leaf: [UInt8], contentVector: VersionVector? = nil, namespace: String,
                     books: Bookkeeping) throws(SyncKernelError) -> [UInt8] {
        var others: [(vector: VersionVector, leaf: [UInt8])] = []
        for entry in try books.versionEntries(namespace, key) {
            guard entry.row != nil, let stored = entry.leaf, let vector = try? Bookkeeping.decodeVector(entry.vector) else { continue }
            others.append((vector, stored))
        }
        guard others.contains(where: { $0.leaf != leaf }) else { return leaf }
        let content: VersionVector
        if let contentVector {
            content = contentVector
        } else {
            let version: RowVersion? = try? books.record(namespace, key)?.version()
            content = version?.contentVector ?? VersionVector()
        }
        return ConflictItem.hash(leaf: leaf, contentVector: content, others: others)
    }
}
