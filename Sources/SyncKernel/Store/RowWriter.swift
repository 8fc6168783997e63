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
/// reports it only once the transaction commits (`quarantined`). A key's item is its leaf, or
/// its `ConflictItem` while it keeps a live version of another leaf beside its visible row: every change to a key's
/// row or kept versions moves the item from the one the structure held before the change began
/// (the caller reads it with `item` first when it changes kept versions itself) to the one the
/// stored state gives after, so conflicts are in the digest exactly as the versions are stored.
/// A transaction that writes more than `bulkRows` rows lets the connection's page cache grow to
/// `SQLiteConnection.bulkPageCacheKibibytes` until the writer is released (after its
/// transaction ended), when it is set back to `pageCacheKibibytes`: a bulk load or a large
/// apply spends memory for fewer page evictions, and steady-state memory stays as before.
/// Every change to a key's row or kept versions is entered in the change log in the same
/// transaction (`Bookkeeping+Changes`), numbered after the last number the log handed out and
/// marked with `origin`.
final class RowWriter {
    /// A row's identity across the namespaces one transaction may touch.
    private struct StagedKey: Hashable {
        /// The namespace the row belongs to.
        let namespace: String
        /// The row's key.
        let key: [UInt8]
    }

    let books: Bookkeeping
    /// The namespaces the store syncs (for a kept version's leaf, and whether a key can hold any).
    private let namespaces: NamespaceSet
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
    /// Keys whose open conflict a local save, delete or resolve of this transaction superseded,
    /// by namespace; the store reports them after the commit (`WriteOutcome.resolvedConflicts`).
    private(set) var resolvedConflicts: [String: Set<[UInt8]>] = [:]
    /// The keys whose item this transaction moved, by namespace, while at most `movedKeyLimit`
    /// of a namespace's: what a local write pushes to a sibling it was in step with
    /// (`WriteOutcome.movedKeys`). A namespace past the limit is in `movedKeysOverflowed` instead,
    /// so a transaction of a million rows keeps no per-row list.
    private(set) var movedKeys: [String: Set<[UInt8]>] = [:]
    /// Namespaces with more than `movedKeyLimit` moved keys in this transaction.
    private(set) var movedKeysOverflowed: Set<String> = []
    /// The most moved keys of one namespace `movedKeys` lists: 131,072, so a write of up to that
    /// many rows goes to a sibling in step as a push (a list of about 64 bytes a key of 16 bytes:
    /// at most about 8 MB, per namespace of one transaction).
    static let movedKeyLimit = 1 << 17
    /// Time spent moving items in the working structures (the structure's share of each write).
    private(set) var moveTime: Duration = .zero
    /// The rows after which a transaction counts as a bulk write and the page cache grows.
    static let bulkRows = 65_536
    /// Whether this writer grew the connection's page cache (set back when it is released).
    private var grewPageCache = false
    /// Where this transaction's changes come from, as the change log records them.
    var origin = ChangeOrigin.local
    /// The last change-log number this transaction handed out (nil before its first change).
    private var lastChange: Int64?

    init(books: Bookkeeping, namespaces: NamespaceSet, committed: @escaping (_ namespace: String) -> NamespaceStructure) {
        self.books = books
        self.namespaces = namespaces
        self.committed = committed
    }

    deinit {
        if grewPageCache { try? books.db.setPageCache(kibibytes: SQLiteConnection<SyncKernelError>.pageCacheKibibytes) }
    }

    /// The item the structure holds for `key` when the stored state is as this transaction sees
    /// it: nil for no row or a device-derived one, the leaf, or the conflict item of a causal key
    /// that keeps a live version of another leaf beside its row.
    func item(_ namespace: String, _ key: [UInt8]) throws(SyncKernelError) -> [UInt8]? {
        guard let leaf = try leafHash(namespace, key) else { return nil }
        let driver = try namespaces.driver(named: namespace)
        return try StructureItems.item(key, leaf: leaf, driver: driver, books: books)
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

    /// Stores `row` in `namespace` and moves its item (a device-derived row has none) from the
    /// one the structure holds (`old`, read now when not given: a caller that changed the key's
    /// kept versions first passes the item it read before), recording the namespace's change
    /// counter after the move beside the row; with a `version`, the row's RowVersion is written
    /// in the same statement, otherwise a stored row keeps its own. `keepsNoVersions` says the
    /// caller knows the key keeps no other version now (a local edit removed them all), so its
    /// item is its leaf and the kept versions are not read again.
    func put(_ namespace: String, row: InspectedRow, version: RowVersion? = nil, replacing old: [UInt8]?? = nil,
             keepsNoVersions: Bool = false) throws(SyncKernelError) {
        let before: [UInt8]?
        if let old { before = old } else { before = try item(namespace, row.key) }
        let leaf = row.isDeviceDerived ? nil : row.leaf.hash
        let after = keepsNoVersions ? leaf : try leaf.map { (leaf) throws(SyncKernelError) in
            try StructureItems.item(row.key, leaf: leaf, contentVector: version?.contentVector, driver: try namespaces.driver(named: namespace),
                                    books: books)
        }
        try move(namespace, row.key, from: before, to: after)
        try books.putRow(namespace, row.key, row.bytes, leaf: leaf, changed: structures[namespace]?.changes, version: version)
        remember(namespace, row.key, leaf)
        try noteChange(namespace, row.key)
        try growPageCacheIfBulk()
    }

    /// Stores `row` under a key the caller checked in this transaction holds nothing (no row,
    /// no kept version: `Bookkeeping.isAbsent`), with its RowVersion when given, and adds its
    /// item (its leaf: a key with no kept version has no conflict item; a device-derived row has
    /// none); unlike `put`, it reads no stored item first.
    func insert(_ namespace: String, row: InspectedRow, version: RowVersion?) throws(SyncKernelError) {
        let leaf = row.isDeviceDerived ? nil : row.leaf.hash
        try move(namespace, row.key, from: nil, to: leaf)
        try books.putRow(namespace, row.key, row.bytes, leaf: leaf, changed: structures[namespace]?.changes, version: version)
        remember(namespace, row.key, leaf)
        try noteChange(namespace, row.key)
        try growPageCacheIfBulk()
    }

    /// Deletes the row `key` of `namespace` and removes its item (the one the structure holds:
    /// `old`, read now when not given).
    func remove(_ namespace: String, key: [UInt8], replacing old: [UInt8]?? = nil) throws(SyncKernelError) {
        let before: [UInt8]?
        if let old { before = old } else { before = try item(namespace, key) }
        try books.removeRow(namespace, key)
        remember(namespace, key, nil)
        try move(namespace, key, from: before, to: nil)
        try noteChange(namespace, key)
    }

    /// Stores `row` without moving its item: a step of a change the caller completes with
    /// `settle(_:_:from:)`.
    func writeRow(_ namespace: String, row: InspectedRow) throws(SyncKernelError) {
        let leaf = row.isDeviceDerived ? nil : row.leaf.hash
        if structures[namespace] == nil { structures[namespace] = committed(namespace) }
        try books.putRow(namespace, row.key, row.bytes, leaf: leaf, changed: structures[namespace]?.changes)
        remember(namespace, row.key, leaf)
        rowsWritten += 1
        try noteChange(namespace, row.key)
        try growPageCacheIfBulk()
    }

    /// Grows the connection's page cache once this transaction has written `bulkRows` rows.
    private func growPageCacheIfBulk() throws(SyncKernelError) {
        guard rowsWritten >= RowWriter.bulkRows, !grewPageCache else { return }
        try books.db.setPageCache(kibibytes: SQLiteConnection<SyncKernelError>.bulkPageCacheKibibytes)
        grewPageCache = true
    }

    /// Deletes the row `key` without moving its item: a step of a change the caller completes
    /// with `settle(_:_:from:)`.
    func deleteRow(_ namespace: String, key: [UInt8]) throws(SyncKernelError) {
        try books.removeRow(namespace, key)
        remember(namespace, key, nil)
        rowsWritten += 1
        try noteChange(namespace, key)
    }

    /// Replaces the versions of `key` kept beside its visible row, storing each live version's
    /// leaf beside it, without moving the key's item: a step of a change the caller completes with
    /// `put`, `remove` or `settle` from the item it read before the change began.
    func replaceVersions(_ namespace: String, _ key: [UInt8], with versions: [StoredVersion]) throws(SyncKernelError) {
        let driver = try namespaces.driver(named: namespace)
        try books.replaceVersions(namespace, key, with: versions) { (row) throws(SyncKernelError) in try driver.inspect(row).leaf.hash }
        try noteChange(namespace, key)
    }

    /// Completes a change of `key`: moves its item from `old` (the one the structure held before
    /// the change began) to the one the stored state gives now, and records the namespace's change
    /// counter beside the row when the item moved and a row is stored. Not counted in
    /// `rowsWritten` (the row writes of the change were).
    func settle(_ namespace: String, _ key: [UInt8], from old: [UInt8]?) throws(SyncKernelError) {
        let new = try item(namespace, key)
        guard new != old else { return }
        try move(namespace, key, from: old, to: new, counted: false)
        if new != nil, let changes = structures[namespace]?.changes { try books.setChanged(namespace, key, changes) }
    }

    /// Sets a damaged row aside in this transaction: a visible row's item leaves the structure
    /// as its record leaves the table, and a kept version's entry leaves its key's conflict item
    /// (the items are read from what is stored beside the rows, which is what the structure holds:
    /// a kept version's leaf is stored beside it, never recomputed from its damaged bytes).
    /// Nothing happens for an entry no longer stored. Not counted in `rowsWritten`.
    func quarantine(_ damage: DamagedRow, site: QuarantineSite) throws(SyncKernelError) {
        let old = try item(damage.namespace, damage.key)
        guard let entry = try books.quarantine(damage, site: site) else { return }
        quarantined.append(entry)
        if damage.vector == nil { remember(damage.namespace, damage.key, nil) }
        try noteChange(damage.namespace, damage.key)
        try settle(damage.namespace, damage.key, from: old)
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

    /// Records that this transaction's write of `key` superseded an open conflict.
    func noteResolved(_ namespace: String, _ key: [UInt8]) {
        resolvedConflicts[namespace, default: []].insert(key)
    }

    /// Writes every touched structure's changed parts and the change log's last number; the
    /// last step inside the transaction.
    func persist() throws(SyncKernelError) {
        for name in structures.keys.sorted() {
            try structures[name]?.persist(name, into: books)
        }
        if let lastChange { try books.setLastChangeSequence(lastChange) }
    }

    /// Enters a change of `key` in the change log under the next number.
    private func noteChange(_ namespace: String, _ key: [UInt8]) throws(SyncKernelError) {
        let last: Int64
        if let lastChange { last = lastChange } else { last = try books.lastChangeSequence() }
        let next = last + 1
        try books.putChange(namespace, key, sequence: next, origin: origin)
        lastChange = next
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
        if counted { rowsWritten += 1 }
        if old != new, !movedKeysOverflowed.contains(namespace) {
            movedKeys[namespace, default: []].insert(key)
            if movedKeys[namespace]?.count ?? 0 > RowWriter.movedKeyLimit {
                movedKeys[namespace] = nil
                movedKeysOverflowed.insert(namespace)
            }
        }
    }
}
