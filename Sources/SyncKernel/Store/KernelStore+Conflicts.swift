import SQLiteStore

/// The conflict surface: a key's concurrent versions, the keys in conflict and how many per
/// namespace, read from the open store or from a store's file without opening it for writing.
///
/// Invariants: a key is in conflict exactly when it holds live versions of more than one content
/// (the visible row and at least one concurrent version of another leaf kept beside it), which
/// only a causal namespace can; concurrent writes of one content are kept apart (their vectors
/// keep the merge order-free) but are no conflict;
/// every read here goes through the checks every stored row passes (a damaged entry is
/// quarantined, as `row(_:key:)` does, and left out); counting open conflicts reads the partial
/// index over kept live versions, never a row or a tombstone; reading from a file writes nothing.
extension KernelStore {
    /// The live versions of `key` in `N`: the visible row first, then the concurrent versions the
    /// merge kept beside it in vector order, each with the vector of its write and the device that
    /// wrote it. Empty when no live row is held; more than one element also when concurrent
    /// writes of the visible row's own content are kept (not a conflict, `conflictedKeys`).
    /// Throws `operationNotSupportedByRule` for a namespace that keeps no versions.
    public func versions<N: SyncNamespace>(_ namespace: N.Type, key: [UInt8]) throws(SyncKernelError) -> [KeyVersion<N.Row>] {
        try KeyVersions.decoded(try conflictVersions(namespace: N.name, key: key), as: N.self)
    }

    /// `versions(_:key:)` without decoding: each version's row bytes and leaf, by namespace name.
    public func conflictVersions(namespace: String, key: [UInt8]) throws(SyncKernelError) -> [ConflictVersion] {
        let driver = try namespaces.driver(named: namespace)
        guard driver.isCausal else { throw SyncKernelError(.operationNotSupportedByRule, "\(namespace) keeps no versions") }
        let (versions, damaged) = try KeyVersions.live(key, driver: driver, books: books)
        try quarantine(damaged, site: .read)
        return versions
    }

    /// The keys of `namespace` in conflict (live versions of more than one leaf), in key order; empty for
    /// a namespace that keeps no versions.
    public func conflictedKeys(namespace: String) throws(SyncKernelError) -> [[UInt8]] {
        let driver = try namespaces.driver(named: namespace)
        guard driver.isCausal else { return [] }
        return try books.openConflicts(namespace)
    }

    /// How many keys are in conflict in each namespace that keeps versions (0 included), by
    /// name. Cheap: the partial index of kept live versions names the candidate keys, each
    /// checked against its visible leaf, never a scan of the rows or the tombstones.
    public func openConflictCounts() throws(SyncKernelError) -> [String: Int] {
        let counted = try books.openConflictCounts()
        return Dictionary(uniqueKeysWithValues: namespaces.causalEntities.map { ($0, counted[$0] ?? 0) })
    }

    /// `openConflictCounts()` of the store at `path`, read through a read-only connection (no
    /// lease, no migration, nothing written), so a tool can ask while a device runs on the store:
    /// every namespace whose row table the file holds, each with its count (0 for none; a
    /// namespace that keeps no versions has none). Throws `notAStore` for a missing, empty or
    /// non-SQLite file and `foreignDatabase` for another application's database, as `init` does.
    public static func openConflictCounts(storedAt path: String) throws(SyncKernelError) -> [String: Int] {
        let reader = try StoreReader(path: path)
        defer { reader.close() }
        return try reader.openConflictCounts()
    }
}
