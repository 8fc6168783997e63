import SQLiteStore

/// One device's synced state on SQLite: namespace rows, RowVersion bookkeeping, tombstones and leaves.
///
/// Invariants: every write to a namespace's rows (local saves through `write`, merges through
/// `apply`) runs in one transaction and goes through the single `RowWriter`; a crash leaves the
/// state before or after a write, never between. The in-memory leaf indexes always describe the
/// committed rows, and the cached digest is the one those indexes give (dropped whenever
/// `commitLeaves` moves a leaf, recomputed on the next read). Bookkeeping-only writes change no
/// leaf and so never report a namespace dirty.
/// Not `Sendable`: one owner (a `Replica` or a test) uses it.
public final class KernelStore {
    /// The namespaces this store syncs.
    public let namespaces: NamespaceSet
    let db: SQLiteConnection<SyncKernelError>
    let books: Bookkeeping
    private(set) var clock = DeviceClock()
    private(set) var indexes: [String: LeafIndex] = [:]
    /// The digest of the current indexes and its wire form; nil until read after a leaf moved.
    private var cachedDigest: (digest: StateDigest, encoded: [UInt8])?
    /// Time spent in `commitLeaves` since the store opened: what keeping the in-memory leaf
    /// structure costs the write path after each commit (the benchmark reports it per row).
    package private(set) var leafUpkeepTime: Duration = .zero
    /// How this store answers large mismatching ranges.
    public var responsePolicy: ResponsePolicy

    /// Opens (or creates) the store at `path` and loads every namespace's leaves.
    ///
    /// Each row is stored beside its leaf hash, so opening reads the leaves without decoding a
    /// row. A namespace whose stored rows were written in an earlier row format is migrated first,
    /// in one transaction, through the namespace's `RowMigration` for that format; with none, the
    /// store refuses to open with `rowFormatChanged` naming the namespace and the format. Rows from
    /// a store made before leaves were stored get theirs once, in one transaction. A causal
    /// namespace whose rows have no bookkeeping yet (seen for the first time) registers them with
    /// empty vectors. A stored row that must be decoded at open (a migration, a missing leaf, a
    /// first registration) and no longer decodes is a `corruptBookkeeping` error; otherwise an
    /// unreadable row is found when it is read or shipped.
    public init(path: String, namespaces: NamespaceSet, responsePolicy: ResponsePolicy = .standard) throws(SyncKernelError) {
        self.namespaces = namespaces
        self.responsePolicy = responsePolicy
        db = try SQLiteConnection(path: path)
        books = Bookkeeping(db: db)
        try db.execute(Bookkeeping.schema)
        for driver in namespaces.drivers {
            try books.createRowTable(driver.name)
            try migrateRowFormat(driver)
            try storeMissingLeaves(driver)
            if driver.isCausal, try books.versionCount(driver.name) == 0, try !books.isEmpty(driver.name) {
                let rows = try inspectAll(driver)
                try db.transaction { () throws(SyncKernelError) in
                    try RowClock(books: books, clock: clock).registerIfFirstSeen(driver.name, rows: rows)
                }
            }
            indexes[driver.name] = LeafIndex(try books.leaves(driver.name))
        }
    }

    /// Every stored row of a namespace decoded, refusing the store if one no longer decodes.
    private func inspectAll(_ driver: NamespaceDriver) throws(SyncKernelError) -> [InspectedRow] {
        var inspected: [InspectedRow] = []
        for bytes in try books.allRows(driver.name) {
            do {
                inspected.append(try driver.inspect(bytes))
            } catch {
                throw SyncKernelError(.corruptBookkeeping, "unreadable stored row in \(driver.name)")
            }
        }
        return inspected
    }

    /// Stores the leaf of every row that has none yet (a store from before rows kept their
    /// leaves), in one transaction; afterwards the store opens without decoding a row.
    private func storeMissingLeaves(_ driver: NamespaceDriver) throws(SyncKernelError) {
        let missing = try books.rowsWithoutLeaf(driver.name)
        guard !missing.isEmpty else { return }
        try db.transaction { () throws(SyncKernelError) in
            for (key, bytes) in missing {
                let row: InspectedRow
                do {
                    row = try driver.inspect(bytes)
                } catch {
                    throw SyncKernelError(.corruptBookkeeping, "unreadable stored row in \(driver.name)")
                }
                try books.putRow(driver.name, key, bytes, leaf: row.isDeviceDerived ? nil : row.leaf.hash)
            }
        }
    }

    /// Brings a namespace's stored rows (and kept concurrent versions) to the current row format.
    private func migrateRowFormat(_ driver: NamespaceDriver) throws(SyncKernelError) {
        let stored = try books.rowFormat(driver.name)
        guard stored != driver.rowFormatID else { return }
        try db.transaction { () throws(SyncKernelError) in
            if let stored {
                func migrated(_ key: [UInt8], _ bytes: [UInt8]) throws(SyncKernelError) -> [UInt8] {
                    let rewritten: [UInt8]?
                    do {
                        rewritten = try driver.migrate(stored, bytes)
                    } catch {
                        throw SyncKernelError(.rowFormatChanged, "\(driver.name): a stored row does not read under the migration from \(stored)")
                    }
                    guard let rewritten else {
                        throw SyncKernelError(.rowFormatChanged, "\(driver.name): stored rows are in format \(stored); declare a RowMigration from it")
                    }
                    guard try driver.inspect(rewritten).key == key else {
                        throw SyncKernelError(.rowFormatChanged, "\(driver.name): the migration from \(stored) changed a row's key")
                    }
                    return rewritten
                }
                for (key, bytes) in try books.keyedRows(driver.name) {
                    let rewritten = try migrated(key, bytes)
                    let row = try driver.inspect(rewritten)
                    try books.putRow(driver.name, key, rewritten, leaf: row.isDeviceDerived ? nil : row.leaf.hash)
                }
                for version in try books.liveVersionRows(driver.name) {
                    try books.replaceVersionRow(driver.name, key: version.key, vector: version.vector,
                                                row: try migrated(version.key, version.row))
                }
            }
            try books.setRowFormat(driver.name, driver.rowFormatID)
        }
    }

    /// Closes the database; the store is unusable afterwards.
    public func close() {
        db.close()
    }

    /// Writes the WAL into the main file (before copying the file as a snapshot).
    public func checkpoint() throws(SyncKernelError) {
        try db.checkpoint()
    }

    /// The configured device identity, if any.
    public var device: DeviceID? { clock.device }

    /// Pins this store's clock to the device's identity; until then local saves of causal rows fail.
    public func configureDevice(_ device: DeviceID) throws(SyncKernelError) {
        try clock.configure(device)
    }

    // MARK: Local writes

    /// Runs `body` as one local write transaction on namespace `N`.
    ///
    /// Returns the namespaces whose leaves changed (empty for bookkeeping-only or no-op writes).
    /// If `body` throws, nothing is written.
    @discardableResult
    public func write<N: SyncNamespace>(_ namespace: N.Type,
                                        _ body: (NamespaceTransaction<N>) throws(SyncKernelError) -> Void) throws(SyncKernelError) -> WriteOutcome {
        let driver = try namespaces.driver(named: N.name)
        let writer = RowWriter(books: books) { [unowned self] namespace, key in self.indexes[namespace]?.hash(for: key) }
        try db.transaction { () throws(SyncKernelError) in
            try body(NamespaceTransaction<N>(writer: writer, rowClock: RowClock(books: books, clock: clock), driver: driver))
        }
        return WriteOutcome(changedNamespaces: commitLeaves(writer), rowsWritten: writer.rowsWritten)
    }

    // MARK: Reads

    /// The stored row of `N` with `key`.
    public func row<N: SyncNamespace>(_ namespace: N.Type, key: [UInt8]) throws(SyncKernelError) -> N.Row? {
        guard let bytes = try books.row(N.name, key) else { return nil }
        return try N.decodeRow(bytes: bytes)
    }

    /// Every stored row of `N`, in key order.
    public func rows<N: SyncNamespace>(_ namespace: N.Type) throws(SyncKernelError) -> [N.Row] {
        var out: [N.Row] = []
        for bytes in try books.allRows(N.name) { out.append(try N.decodeRow(bytes: bytes)) }
        return out
    }

    /// The RowVersion bookkeeping of a row, if it has any.
    public func version(namespace: String, key: [UInt8]) throws(SyncKernelError) -> RowVersion? {
        try books.version(namespace, key)
    }

    /// The delete versions of a namespace, in key order (a key may have several concurrent ones).
    public func tombstones(namespace: String) throws(SyncKernelError) -> [Tombstone] {
        try books.tombstones(namespace)
    }

    /// The sorted leaves of a namespace.
    public func leaves(namespace: String) throws(SyncKernelError) -> [Leaf] {
        _ = try namespaces.driver(named: namespace)
        return indexes[namespace]?.leaves ?? []
    }

    // MARK: Digest

    /// The current digest: one root per namespace, from the maintained leaf indexes.
    ///
    /// Served from a cache until a committed write or apply moves a leaf, so asking again with
    /// nothing changed costs no hashing.
    public func stateDigest() -> StateDigest {
        currentDigest().digest
    }

    /// The wire form of `stateDigest()` (`StateDigest.encoded()`), served from the same cache.
    public func encodedStateDigest() -> [UInt8] {
        currentDigest().encoded
    }

    /// The cached digest and its encoding, computed from the indexes when a leaf moved since.
    private func currentDigest() -> (digest: StateDigest, encoded: [UInt8]) {
        if let cachedDigest { return cachedDigest }
        let names = namespaces.names
        let roots = names.map { name in indexes[name, default: LeafIndex()].root() }
        let digest = StateDigest(schema: namespaces.schema, namespaces: names, roots: roots)
        let computed = (digest: digest, encoded: digest.encoded())
        cachedDigest = computed
        return computed
    }

    /// The digest recomputed from the stored rows by a full scan, ignoring the maintained leaves.
    ///
    /// Equal to `stateDigest()` whenever the store is healthy; use it to audit the indexes, or to
    /// measure what the maintained indexes save.
    public func recomputedStateDigest() throws(SyncKernelError) -> StateDigest {
        var roots: [[UInt8]] = []
        for driver in namespaces.drivers {
            var leaves: [Leaf] = []
            for bytes in try books.allRows(driver.name) {
                let row = try driver.inspect(bytes)
                if !row.isDeviceDerived { leaves.append(row.leaf) }
            }
            var index = LeafIndex(leaves)
            roots.append(index.root())
        }
        return StateDigest(schema: namespaces.schema, namespaces: namespaces.names, roots: roots)
    }

    /// Moves a committed writer's staged leaf changes into the indexes and drops the cached
    /// digest if any leaf moved; returns namespaces whose leaves changed.
    func commitLeaves(_ writer: RowWriter) -> Set<String> {
        let started = ContinuousClock.now
        defer { leafUpkeepTime += started.duration(to: .now) }
        var changed: Set<String> = []
        for staged in writer.stagedLeaves {
            let moved = if let hash = staged.hash {
                indexes[staged.namespace, default: LeafIndex()].upsert(Leaf(key: staged.key, hash: hash))
            } else {
                indexes[staged.namespace, default: LeafIndex()].remove(staged.key)
            }
            if moved { changed.insert(staged.namespace) }
        }
        if !changed.isEmpty { cachedDigest = nil }
        return changed
    }
}
