import SQLiteStore

/// The one place every write to a namespace's rows goes through, local saves and merge applies alike.
///
/// Invariants: a row write and the matching change to its namespace's structure happen together
/// inside the caller's transaction: `put` and `remove` move the row's item in a working copy of
/// the structure, and `persist` (called last inside the transaction) writes the changed symbols,
/// buckets and header beside the rows, so a crash or rollback leaves rows and structure
/// consistent. The store adopts the working copies only after the transaction commits
/// (`structures`), so a rolled-back write leaves no trace in memory either. `knownLeaves`
/// caches the leaf this transaction last wrote or read per (namespace, key), so `leafHash` costs
/// O(1) for a row it just touched and one indexed read otherwise (the transaction's own reads see
/// its own writes, so the cache never contradicts the store); its size is capped, so memory does
/// not grow with the rows a transaction writes. A damaged row met inside the transaction is
/// quarantined through `quarantine` (its item leaves the structure as its record leaves the
/// table, and the quarantine entry is written, all in the caller's transaction); the store
/// reports it only once the transaction commits (`quarantined`). A transaction that writes more
/// than `bulkRows` rows lets the connection's page cache grow to
/// `SQLiteConnection.bulkPageCacheKibibytes` until the writer is released (after its
/// transaction ended), when it is set back to `pageCacheKibibytes`: a bulk load or a large
/// apply spends memory for fewer page evictions, and steady-state memory stays as before.
final class RowWriter {
    /// A row's identity across the namespaces one transaction may touch.
    private struct StagedKey: Hashable {
        /// The namespace the row belongs to.
        let namespace: String
        /// The row's key.
        let key: [UInt8]
    }

    let books: Bookkeeping
    private let committed: (_ namespace: String) -> NamespaceStructure
    /// Working copies of the structures this transaction touched.
    private(set) var structures: [String: NamespaceStructure] = [:]
    /// The leaf hash of rows this transaction wrote or read lately (nil: no item), the last one
    /// written winning, so a save that reads its row once does not read its leaf again. A cache
    /// only (the transaction's own reads see its own writes), emptied past `knownLeafLimit`
    /// entries so a transaction of a million rows holds no per-row state.
    private var knownLeaves: [StagedKey: [UInt8]?] = [:]
    /// The most leaves `knownLeaves` holds.
    private static let knownLeafLimit = 4_096
    private(set) var rowsWritten = 0
    /// Rows this transaction quarantined, in order; the store reports them after the commit.
    private(set) var quarantined: [QuarantinedRow] = []
    /// Time spent moving items in the working structures (the structure's share of each write).
    private(set) var moveTime: Duration = .zero
    /// The rows after which a transaction counts as a bulk write and the page cache grows.
    static let bulkRows = 65_536
    /// Whether this writer grew the connection's page cache (set back when it is released).
    private var grewPageCache = false

    init(books: Bookkeeping, committed: @escaping (_ namespace: String) -> NamespaceStructure) {
        self.books = books
        self.committed = committed
    }

    deinit {
        if grewPageCache { try? books.db.setPageCache(kibibytes: SQLiteConnection<SyncKernelError>.pageCacheKibibytes) }
    }

    /// The leaf hash of row `key` as this transaction sees it (staged changes first), without
    /// decoding the row; nil for no row or a device-derived one.
    func leafHash(_ namespace: String, _ key: [UInt8]) throws(SyncKernelError) -> [UInt8]? {
        let staged = StagedKey(namespace: namespace, key: key)
        if let leaf = knownLeaves[staged] { return leaf }
        let leaf = try books.leaf(namespace, key)
        remember(namespace, key, leaf)
        return leaf
    }

    /// The stored record of `key` as this transaction sees it, read once with its leaf and
    /// RowVersion.
    func storedRecord(_ namespace: String, _ key: [UInt8]) throws(SyncKernelError) -> StoredRecord? {
        let stored = try books.record(namespace, key)
        remember(namespace, key, stored?.leaf)
        return stored
    }

    /// Caches the leaf this transaction now sees for a row.
    private func remember(_ namespace: String, _ key: [UInt8], _ leaf: [UInt8]?) {
        if knownLeaves.count >= RowWriter.knownLeafLimit { knownLeaves.removeAll(keepingCapacity: true) }
        knownLeaves[StagedKey(namespace: namespace, key: key)] = .some(leaf)
    }

    /// Stores `row` in `namespace` and moves its item (a device-derived row has none), recording
    /// the namespace's change counter after the move beside the row; with a `version`, the row's
    /// RowVersion is written in the same statement, otherwise a stored row keeps its own.
    func put(_ namespace: String, row: InspectedRow, version: RowVersion? = nil) throws(SyncKernelError) {
        let old = try leafHash(namespace, row.key)
        let leaf = row.isDeviceDerived ? nil : row.leaf.hash
        try move(namespace, row.key, from: old, to: leaf)
        try books.putRow(namespace, row.key, row.bytes, leaf: leaf, changed: structures[namespace]?.changes, version: version)
        if rowsWritten == RowWriter.bulkRows, !grewPageCache {
            try books.db.setPageCache(kibibytes: SQLiteConnection<SyncKernelError>.bulkPageCacheKibibytes)
            grewPageCache = true
        }
    }

    /// Deletes the row `key` of `namespace` and removes its item.
    func remove(_ namespace: String, key: [UInt8]) throws(SyncKernelError) {
        let old = try leafHash(namespace, key)
        try books.removeRow(namespace, key)
        try move(namespace, key, from: old, to: nil)
    }

    /// Sets a damaged row aside in this transaction: a visible row's item leaves the structure
    /// (from the leaf stored beside it, which is the item the structure holds) as its record
    /// leaves the table; a kept version leaves only its own entry. Nothing happens for an entry
    /// no longer stored. Not counted in `rowsWritten`.
    func quarantine(_ damage: DamagedRow, site: QuarantineSite) throws(SyncKernelError) {
        let old = damage.vector == nil ? try leafHash(damage.namespace, damage.key) : nil
        guard let entry = try books.quarantine(damage, site: site) else { return }
        quarantined.append(entry)
        if damage.vector == nil { try move(damage.namespace, damage.key, from: old, to: nil, counted: false) }
    }

    /// The stored record of `key` with its row inspected and its RowVersion decoded, when it
    /// passes `StoredRowCheck.visible`; a record that does not is quarantined here (found at
    /// `site`) and the key then holds no row.
    func usableRecord(_ key: [UInt8], driver: NamespaceDriver,
                      site: QuarantineSite) throws(SyncKernelError) -> (record: StoredRecord, row: InspectedRow, version: RowVersion?)? {
        guard let stored = try storedRecord(driver.name, key) else { return nil }
        switch StoredRowCheck.visible(key, stored, driver: driver) {
        case .usable(let usable):
            return (stored, usable.row, usable.version)
        case .damaged(let reason):
            try quarantine(DamagedRow(namespace: driver.name, key: key, row: stored.row, reason: reason), site: site)
            return nil
        }
    }

    /// The kept versions of `key` (concurrent live versions and deletes) that pass
    /// `StoredRowCheck.kept`; each that does not is quarantined here (found at `site`).
    func usableVersions(_ key: [UInt8], driver: NamespaceDriver, site: QuarantineSite) throws(SyncKernelError) -> [StoredVersion] {
        let (usable, damaged) = StoredRowCheck.kept(key, entries: try books.versionEntries(driver.name, key), driver: driver)
        for damage in damaged { try quarantine(damage, site: site) }
        return usable
    }

    /// Writes every touched structure's changed parts; the last step inside the transaction.
    func persist() throws(SyncKernelError) {
        for name in structures.keys.sorted() {
            try structures[name]?.persist(name, into: books)
        }
    }

    /// Moves the row's item in the working structure; throws, moving nothing, for a key the
    /// structure refuses (the caller's transaction then rolls back). `counted` says whether the
    /// move counts as a row written.
    private func move(_ namespace: String, _ key: [UInt8], from old: [UInt8]?, to new: [UInt8]?,
                      counted: Bool = true) throws(SyncKernelError) {
        let started = ContinuousClock.now
        defer { moveTime += started.duration(to: .now) }
        if structures[namespace] == nil { structures[namespace] = committed(namespace) }
        try structures[namespace]?.move(key: key, from: old, to: new)
        remember(namespace, key, new)
        if counted { rowsWritten += 1 }
    }
}
