/// One device's synced state on SQLite: namespace rows, RowVersion bookkeeping, tombstones and leaves.
///
/// Invariants: every write to a namespace's rows (local saves through `write`, merges through
/// `apply`) runs in one transaction and goes through the single `RowWriter`; a crash leaves the
/// state before or after a write, never between. The in-memory leaf indexes always describe the
/// committed rows. Bookkeeping-only writes change no leaf and so never report a namespace dirty.
/// Not `Sendable`: one owner (a `Replica` or a test) uses it.
public final class KernelStore {
    /// The namespaces this store syncs.
    public let namespaces: NamespaceSet
    let db: Database
    private let books: Bookkeeping
    private var clock = DeviceClock()
    private var indexes: [String: LeafIndex] = [:]
    /// How this store answers large mismatching ranges.
    public var responsePolicy: ResponsePolicy

    /// Opens (or creates) the store at `path` and loads every namespace's leaves.
    ///
    /// A namespace whose stored rows were written in an earlier row format is migrated first, in
    /// one transaction, through the namespace's `RowMigration` for that format; with none, the
    /// store refuses to open with `rowFormatChanged` naming the namespace and the format. A causal
    /// namespace whose rows have no bookkeeping yet (seen for the first time) registers them with
    /// empty vectors. A stored row that no longer decodes is a `corruptBookkeeping` error.
    public init(path: String, namespaces: NamespaceSet, responsePolicy: ResponsePolicy = .standard) throws(SyncKernelError) {
        self.namespaces = namespaces
        self.responsePolicy = responsePolicy
        db = try Database(path: path)
        books = Bookkeeping(db: db)
        try db.execute(Bookkeeping.schema)
        for driver in namespaces.drivers {
            try books.createRowTable(driver.name)
            try migrateRowFormat(driver)
            var inspected: [InspectedRow] = []
            for bytes in try books.allRows(driver.name) {
                do {
                    inspected.append(try driver.inspect(bytes))
                } catch {
                    throw SyncKernelError(.corruptBookkeeping, "unreadable stored row in \(driver.name)")
                }
            }
            if driver.isCausal {
                try db.transaction { () throws(SyncKernelError) in
                    try RowClock(books: books, clock: clock).registerIfFirstSeen(driver.name, rows: inspected)
                }
            }
            indexes[driver.name] = LeafIndex(inspected.filter { !$0.isDeviceDerived }.map(\.leaf))
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
                    try books.putRow(driver.name, key, try migrated(key, bytes))
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

    // MARK: Digest and reconcile

    /// The current digest: one root per namespace, from the maintained leaf indexes.
    public func stateDigest() -> StateDigest {
        let names = namespaces.names
        let roots = names.map { name in indexes[name, default: LeafIndex()].root() }
        return StateDigest(schema: namespaces.schema, namespaces: names, roots: roots)
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

    /// The request to send for a divergent namespace: its range fingerprints.
    public func reconcileRequest(for namespace: String) throws(SyncKernelError) -> ReconcileRequest {
        let driver = try namespaces.driver(named: namespace)
        switch driver.granularity {
        case .ranges:
            return ReconcileRequest(namespace: namespace, buckets: Bucketizer.bucketize(indexes[namespace] ?? LeafIndex()))
        case .wholeNamespace:
            return ReconcileRequest(namespace: namespace, buckets: [])
        }
    }

    /// The response to a peer's request, or nil when there is nothing to give.
    public func respond(to request: ReconcileRequest) throws(SyncKernelError) -> ReconcileResponse? {
        let driver = try namespaces.driver(named: request.namespace)
        guard request.keys.isEmpty else { return try respond(toKeys: request.keys, driver: driver) }
        let index = indexes[request.namespace] ?? LeafIndex()
        let ranges = driver.granularity == .wholeNamespace || request.buckets.isEmpty
            ? [KeyRange.all]
            : Bucketizer.mismatchingRanges(request.buckets, over: index)
        guard !ranges.isEmpty else { return nil }
        var rows: [ShippedRow] = []
        var listings: [RangeListing] = []
        for range in ranges {
            let leaves = index.leaves(in: range)
            if case .listAbove(let threshold) = responsePolicy, driver.granularity == .ranges, leaves.count > threshold {
                listings.append(RangeListing(range: range, leaves: Array(leaves)))
                continue
            }
            for leaf in leaves { rows.append(try shippedRow(leaf.key, driver: driver)) }
        }
        let tombstones = driver.isCausal ? try books.tombstones(driver.name) : []
        guard !rows.isEmpty || !tombstones.isEmpty || !listings.isEmpty else { return nil }
        return ReconcileResponse(namespace: driver.name, rows: rows, tombstones: tombstones, listings: listings)
    }

    /// The rows a listing shows the responder holds differently: keys whose leaf differs or is missing here.
    public func wantedKeys(_ listings: [RangeListing], namespace: String) throws(SyncKernelError) -> [[UInt8]] {
        _ = try namespaces.driver(named: namespace)
        let index = indexes[namespace] ?? LeafIndex()
        return listings.flatMap { listing in
            listing.leaves.filter { index.hash(for: $0.key) != $0.hash }.map(\.key)
        }
    }

    private func respond(toKeys keys: [[UInt8]], driver: NamespaceDriver) throws(SyncKernelError) -> ReconcileResponse? {
        let index = indexes[driver.name] ?? LeafIndex()
        var rows: [ShippedRow] = []
        var tombstones: [Tombstone] = []
        for key in keys {
            if index.hash(for: key) != nil {
                rows.append(try shippedRow(key, driver: driver))
            }
            if driver.isCausal {
                tombstones += try books.versions(driver.name, key).filter { !$0.isLive }.map { Tombstone(key: key, vector: $0.vector) }
            }
        }
        guard !rows.isEmpty || !tombstones.isEmpty else { return nil }
        return ReconcileResponse(namespace: driver.name, rows: rows, tombstones: tombstones)
    }

    private func shippedRow(_ key: [UInt8], driver: NamespaceDriver) throws(SyncKernelError) -> ShippedRow {
        guard let bytes = try books.row(driver.name, key) else {
            throw SyncKernelError(.corruptBookkeeping, "leaf without a row in \(driver.name)")
        }
        guard driver.isCausal else { return ShippedRow(row: bytes, vector: nil) }
        let version = try books.version(driver.name, key)
        let vector = version?.vector ?? VersionVector()
        let content = version?.contentVector ?? vector
        let siblings = try books.versions(driver.name, key).compactMap { sibling in
            sibling.row.map { ShippedRow(row: $0, vector: sibling.vector) }
        }
        return ShippedRow(row: bytes, vector: vector, contentVector: content == vector ? nil : content, siblings: siblings)
    }

    /// Merges a peer's response under the namespace's rule, in one transaction.
    ///
    /// Either every row and tombstone is merged or, on any malformed row, none is (typed error).
    @discardableResult
    public func apply(_ response: ReconcileResponse) throws(SyncKernelError) -> ApplyOutcome {
        let driver = try namespaces.driver(named: response.namespace)
        let writer = RowWriter(books: books) { [unowned self] namespace, key in self.indexes[namespace]?.hash(for: key) }
        let merger = Merger(driver: driver, writer: writer, rowClock: RowClock(books: books, clock: clock))
        let counts = try db.transaction { () throws(SyncKernelError) -> (rows: Int, tombstones: Int) in
            var rowsApplied = 0
            for shipped in response.rows where try merger.merge(shipped) { rowsApplied += 1 }
            var tombstonesApplied = 0
            if driver.isCausal {
                for tombstone in response.tombstones where try merger.merge(tombstone) { tombstonesApplied += 1 }
            }
            return (rowsApplied, tombstonesApplied)
        }
        let changed = commitLeaves(writer)
        return ApplyOutcome(namespace: driver.name, rowsApplied: counts.rows, tombstonesApplied: counts.tombstones,
                            digestChanged: changed.contains(driver.name))
    }

    /// Moves a committed writer's staged leaf changes into the indexes; returns namespaces whose leaves changed.
    private func commitLeaves(_ writer: RowWriter) -> Set<String> {
        var changed: Set<String> = []
        for staged in writer.stagedLeaves {
            let moved = if let hash = staged.hash {
                indexes[staged.namespace, default: LeafIndex()].upsert(Leaf(key: staged.key, hash: hash))
            } else {
                indexes[staged.namespace, default: LeafIndex()].remove(staged.key)
            }
            if moved { changed.insert(staged.namespace) }
        }
        return changed
    }
}
