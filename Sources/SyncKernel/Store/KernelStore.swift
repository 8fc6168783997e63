#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SQLiteStore

/// One device's synced state on SQLite: namespace rows, RowVersion bookkeeping, tombstones, and
/// each namespace's persisted reconciliation structure.
///
/// Invariants: every write to a namespace's rows (local saves through `write`, merges through
/// `apply`) runs in one transaction and goes through the single `RowWriter`, which updates the
/// namespace's `NamespaceStructure` (set hash, sketch, bucket fingerprints) in the same
/// transaction; a crash leaves rows and structure before or after a write, never between. The
/// in-memory structures are the committed ones (adopted only after a commit), so reading the
/// root, a symbol or a bucket never reads a row. Memory does not grow with the row count: a
/// structure is a fixed 4,096 symbols and 4,096 buckets per namespace. The cached digests are
/// dropped whenever a commit changes a namespace's items. Bookkeeping-only writes change no
/// item and so never report a namespace dirty. Local writes count under the device's current
/// epoch (`deviceEpoch`), recorded in the store with the evidence of its continuity
/// (`EpochLedger`); a store that cannot vouch that it holds everything its device counted
/// before (restored, copied, rolled back, or shown so by a sibling) takes a fresh epoch before
/// its next local write, so its counters never repeat one the fleet holds.
/// item and so never report a namespace dirty. A stored row that does not read back where the
/// store reads it is quarantined (`DamagedRow`, `QuarantinedRow`): removed from its table and
/// its item from the structure, and written to `sk_quarantine`, all in one transaction, then
/// reported (`quarantinedAtOpen`, `takeNewlyQuarantined()`, `quarantinedRows()`), so one bad row
/// never stops the rest of the store and a sibling's good copy can take its place.
/// A key in conflict (live versions kept beside its visible row) is held in the structures as its
/// `ConflictItem`, so the digest commits to conflicts as it does to content
/// (`KernelStore+Conflicts` reads them).
/// Not `Sendable`: one owner (a `Replica` or a test) uses it.
public final class KernelStore {
    /// The namespaces this store syncs.
    public let namespaces: NamespaceSet
    let db: SQLiteConnection<SyncKernelError>
    /// The claim on the database file this store holds until it closes (nil in memory).
    private let lock: StoreLock?
    let books: Bookkeeping
    /// The device epoch record and its continuity checks.
    let ledger: EpochLedger
    /// Where fresh epochs and leases draw their nonces.
    private let entropy: EntropySource
    private(set) var clock = DeviceClock()
    /// The epochs this store took since it was opened, in order, each with its reason (empty when
    /// it continued its recorded epoch).
    public private(set) var epochChanges: [EpochChange] = []
    /// The committed structure of every namespace.
    private(set) var structures: [String: NamespaceStructure] = [:]
    /// The set-hash digest and its wire form; nil until read after an item moved.
    private var cachedDigest: (digest: StateDigest, encoded: [UInt8])?
    /// The spec's Merkle roots, per namespace, computed by a scan when a spec peer asks; dropped
    /// for a namespace whenever its items move.
    private var merkleRoots: [String: [UInt8]] = [:]
    /// Time spent keeping the structures current (moving items, writing changed parts) since the
    /// store opened: what the structure costs the write path (the benchmark reports it per row).
    package private(set) var structureUpkeepTime: Duration = .zero
    /// The rows quarantined while the store opened (also the first of `takeNewlyQuarantined()`).
    public private(set) var quarantinedAtOpen: [QuarantinedRow] = []
    /// Rows quarantined (and committed) since the last `takeNewlyQuarantined()`.
    private var pendingQuarantined: [QuarantinedRow] = []

    /// The table of the change marks the replica keeps of each peer, one row per peer and
    /// namespace (read and written by `changeMarks(with:)` and `storeChangeMarks(_:with:)`).
    static let changeMarkSchema = """
        CREATE TABLE IF NOT EXISTS sk_peer_mark(
            peer BLOB NOT NULL, ns TEXT NOT NULL, mine INTEGER NOT NULL, theirs INTEGER NOT NULL, PRIMARY KEY(peer, ns)) WITHOUT ROWID;
        """

    /// Opens (or creates) the store at `path` and loads every namespace's structure.
    ///
    /// The file must be one of ours (`StoreFile`): a path with no file gets a new store, created
    /// whole; a zero-length file or one that is not a SQLite database is refused with
    /// `notAStore`, a SQLite database of another application with `foreignDatabase`, and nothing
    /// is written to a refused file. A store of an earlier build (the kernel's tables, no mark)
    /// is accepted and marked.
    ///
    /// Each row is stored beside its leaf hash and each namespace's structure is persisted, so
    /// opening a store that has its structures reads a fixed number of symbols and buckets per
    /// namespace and no row (the structure is written in the same transaction as every row, so
    /// its presence vouches for the rows' leaves and bookkeeping). A namespace
    /// whose stored rows were written in an earlier row format is migrated first, in one
    /// transaction, through the namespace's `RowMigration` for that format; with none, the store
    /// refuses to open with `rowFormatChanged` naming the namespace and the format. Rows from a
    /// store made before leaves were stored get theirs once, and a namespace with no structure
    /// (a store from before, one whose rows a migration rewrote, or one whose persisted structure
    /// no longer reads) gets one built from its stored leaves once, each in one transaction. A
    /// causal namespace whose rows have no bookkeeping yet (seen for the first time) registers
    /// them with empty vectors. A stored row that must be decoded at open (a migration, a missing
    /// leaf, a first registration) and is damaged is quarantined in that step's transaction
    /// (`quarantinedAtOpen`; a row a migration cannot read is damaged only when its bytes are not
    /// CBOR at all, otherwise the migration is at fault and the store refuses with
    /// `rowFormatChanged`); any other damaged row is found and quarantined where it is next read,
    /// shipped or merged, or by `checkIntegrity`/`repair`. A store from before the change log
    /// gets one, in one transaction, with an entry for every row it holds (origin `local`). These
    /// steps are `StoreMigrator`'s; registering first-seen rows is the store's own (it writes
    /// bookkeeping through the `RowWriter`). `entropy` is where fresh device epochs and leases draw their nonces (the system's random
    /// bytes unless a test or a simulation injects a seeded source).
    public init(path: String, namespaces: NamespaceSet, entropy: EntropySource = .system) throws(SyncKernelError) {
        self.namespaces = namespaces
        self.entropy = entropy
        (db, lock) = try StoreFile.open(path)
        books = Bookkeeping(db: db)
        ledger = EpochLedger(db: db, path: path == ":memory:" || path.isEmpty ? nil : Self.resolvedPath(path))
        var migrator = StoreMigrator(db: db, books: books, namespaces: namespaces)
        try migrator.prepareTables()
        for driver in namespaces.drivers {
            structures[driver.name] = try migrator.migrate(driver)
            pendingQuarantined += migrator.takeQuarantined()
            if driver.isCausal, try !books.hasVersions(driver.name), try !books.isEmpty(driver.name) {
                try registerFirstSeen(driver)
            }
        }
        quarantinedAtOpen = pendingQuarantined
    }

    /// The layout of the persisted structures this build writes (`NamespaceStructure.format`);
    /// a store holding another is rebuilt once at open.
    package static var structureFormat: Int64 { NamespaceStructure.format }

    /// The most wide-tier moves a namespace's journal holds before its changed blocks are written
    /// (`NamespaceStructure.journalLimit`).
    package static var structureJournalLimit: Int { NamespaceStructure.journalLimit }

    /// Rebuilds a namespace's structure from its stored leaves, persists it and adopts it,
    /// dropping the cached digests (`repair`).
    func rebuildStructure(_ namespace: String) throws(SyncKernelError) {
        structures[namespace] = try StoreMigrator(db: db, books: books, namespaces: namespaces).rebuiltStructure(namespace)
        merkleRoots[namespace] = nil
        cachedDigest = nil
    }

    /// Registers every stored row of a causal namespace seen for the first time with an empty
    /// vector, in one transaction that also quarantines the rows that no longer decode (or
    /// decode to another key). Only the decoding is checked: the leaves of a store from before
    /// they were stored may not be there yet.
    private func registerFirstSeen(_ driver: NamespaceDriver) throws(SyncKernelError) {
        let stored = try books.keyedRows(driver.name)
        let writer = makeWriter()
        try db.transaction { () throws(SyncKernelError) in
            var rows: [InspectedRow] = []
            for (key, bytes) in stored {
                switch StoredRowCheck.decoded(key, bytes, driver: driver) {
                case .usable(let row):
                    rows.append(row)
                case .damaged(let reason):
                    try writer.quarantine(DamagedRow(namespace: driver.name, key: key, row: bytes, reason: reason), site: .open)
                }
            }
            try RowClock(writer: writer, clock: clock).registerIfFirstSeen(driver.name, rows: rows)
            try persist(writer)
        }
        adopt(writer)
    }

    deinit {
        close()
    }

    /// Closes the database, then releases the store's lock on its file (another process may open
    /// it for writing from then on); the store is unusable afterwards. Closing again does nothing.
    public func close() {
        db.close()
        lock?.release()
    }

    /// `path` with every symbolic link resolved (itself when it cannot be resolved), so the
    /// lease file of a store reached through a link is the one beside the file itself.
    private static func resolvedPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Writes the WAL into the main file (before copying the file as a snapshot).
    public func checkpoint() throws(SyncKernelError) {
        try db.checkpoint()
    }

    /// The configured device identity, if any.
    public var device: DeviceID? { clock.device }

    /// The epoch local writes count under, once the device is configured.
    public var deviceEpoch: DeviceEpoch? { clock.epoch }

    /// Pins this store's clock to the device's identity; until then local saves of causal rows fail.
    ///
    /// The first configuration of an open store checks the store's continuity
    /// (`EpochLedger.discontinuity`): a store opened as it was left continues its recorded
    /// epoch (a store with no record, new or from before epochs, records epoch 0, the device
    /// itself); a store restored, copied, rolled back or opened by another device takes a fresh
    /// epoch first (listed in `epochChanges`). Throws `deviceEpochUnavailable` when the lease
    /// file beside the database cannot be written; the clock then stays unconfigured.
    public func configureDevice(_ device: DeviceID) throws(SyncKernelError) {
        if try clock.accepts(device) { return }
        let record = try ledger.record()
        if let reason = ledger.discontinuity(of: record, for: device) {
            try takeEpoch(reason, device: device, after: record)
            return
        }
        if let record {
            try clock.enter(record.epoch)
            return
        }
        let first = EpochLedger.Record(epoch: .initial(device), identity: ledger.path.flatMap(FileIdentity.init(path:)),
                                       lease: entropy.bytes(LeaseFile.leaseBytes), writes: 0)
        try db.transaction { () throws(SyncKernelError) in try ledger.store(first) }
        try settle(first, change: nil, strict: true)
    }

    /// Declares this store restored (the host or a restore command brought it back from a
    /// backup) and takes a fresh device epoch at once; returns it. Throws
    /// `deviceIdentityNotConfigured` before `configureDevice`.
    @discardableResult
    public func markRestored() throws(SyncKernelError) -> DeviceEpoch {
        guard let device = clock.device else { throw SyncKernelError(.deviceIdentityNotConfigured) }
        try takeEpoch(.markedRestored, device: device, after: try ledger.record())
        return clock.epoch ?? .initial(device)
    }

    /// Declares the store file at `path` restored before it is opened: its lease file is replaced
    /// by a mark the next `configureDevice` reads as `EpochReason.markedRestored`, so the store
    /// takes a fresh epoch before its first local write. For restore tools that place store
    /// files without opening them; the file itself is not touched.
    public static func markRestored(storeAt path: String) throws(SyncKernelError) {
        try LeaseFile.replace(store: path, with: .restored)
    }

    /// Takes the next epoch of `device` for `reason`, in its own transaction.
    private func takeEpoch(_ reason: EpochReason, device: DeviceID, after record: EpochLedger.Record?) throws(SyncKernelError) {
        let next = nextRecord(device: device, after: record)
        try db.transaction { () throws(SyncKernelError) in try ledger.store(next) }
        try settle(next, change: EpochChange(reason: reason, epoch: next.epoch), strict: true)
    }

    /// The record of a fresh epoch of `device` after `record`: the next number (1 when the
    /// record is another device's or absent), a fresh nonce and lease, no writes counted.
    func nextRecord(device: DeviceID, after record: EpochLedger.Record?) -> EpochLedger.Record {
        let number = record.map { $0.epoch.device == device ? $0.epoch.number + 1 : 1 } ?? 1
        return EpochLedger.Record(epoch: DeviceEpoch(device: device, number: number, nonce: entropy.bytes(DeviceEpoch.nonceBytes)),
                                  identity: ledger.path.flatMap(FileIdentity.init(path:)),
                                  lease: entropy.bytes(LeaseFile.leaseBytes), writes: 0)
    }

    /// After the transaction that stored `record` committed: writes its lease file and moves the
    /// clock to its epoch. With `strict`, a lease file that cannot be written throws and leaves
    /// the clock as it was (the next configuration finds the mismatch and takes another epoch);
    /// otherwise (an epoch taken inside a merge, whose rows are committed) the clock moves anyway
    /// and the mismatch makes the next open take another epoch, which is safe.
    func settle(_ record: EpochLedger.Record, change: EpochChange?, strict: Bool) throws(SyncKernelError) {
        if let path = ledger.path {
            do {
                try LeaseFile.replace(store: path, with: .lease(record.lease, writes: record.writes))
            } catch {
                if strict { throw error }
            }
        }
        try clock.enter(record.epoch)
        if let change { epochChanges.append(change) }
    }

    /// Counts a committed local write in the lease file (best effort, after the commit).
    private func countInLeaseFile(_ counted: (lease: [UInt8], writes: UInt64)?) {
        guard let counted, let path = ledger.path else { return }
        LeaseFile.update(store: path, lease: counted.lease, writes: counted.writes)
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
        let writer = makeWriter()
        let counted = try db.transaction { () throws(SyncKernelError) -> (lease: [UInt8], writes: UInt64)? in
            try body(NamespaceTransaction<N>(writer: writer, rowClock: RowClock(writer: writer, clock: clock), driver: driver))
            try persist(writer)
            return writer.rowsWritten > 0 && clock.epoch != nil ? try ledger.countWrite() : nil
        }
        countInLeaseFile(counted)
        let changed = adopt(writer)
        var outcome = WriteOutcome(changedNamespaces: changed, rowsWritten: writer.rowsWritten,
                                   resolvedConflicts: writer.resolvedConflicts.mapValues { $0.sorted(by: [UInt8].keyPrecedes) })
        outcome.movedKeys = writer.movedKeys.filter { changed.contains($0.key) }
        return outcome
    }

    // MARK: Reads

    /// The stored row of `N` with `key`.
    ///
    /// A stored row that does not decode, or decodes to another key, is quarantined (in its own
    /// transaction) and reads as no row; call it outside a `write` body (inside one, read through
    /// the transaction's `row(forKey:)`).
    public func row<N: SyncNamespace>(_ namespace: N.Type, key: [UInt8]) throws(SyncKernelError) -> N.Row? {
        guard let bytes = try books.row(N.name, key) else { return nil }
        switch StoredRowCheck.read(key, bytes, as: N.self) {
        case .usable(let row):
            return row
        case .damaged(let reason):
            try quarantine([DamagedRow(namespace: N.name, key: key, row: bytes, reason: reason)], site: .read)
            return nil
        }
    }

    /// Every stored row of `N`, in key order; rows that do not read back are quarantined (in one
    /// transaction) and left out, as `row(_:key:)` does.
    public func rows<N: SyncNamespace>(_ namespace: N.Type) throws(SyncKernelError) -> [N.Row] {
        var out: [N.Row] = []
        var damaged: [DamagedRow] = []
        for (key, bytes) in try books.keyedRows(N.name) {
            switch StoredRowCheck.read(key, bytes, as: N.self) {
            case .usable(let row): out.append(row)
            case .damaged(let reason): damaged.append(DamagedRow(namespace: N.name, key: key, row: bytes, reason: reason))
            }
        }
        try quarantine(damaged, site: .read)
        return out
    }

    /// The live versions of `key` kept beside the visible row: concurrent writes the namespace's
    /// tie-break did not show (and, after a collision of two writes counted alike, the one it
    /// did not pick), in vector order; empty when the key has one version.
    public func concurrentRows<N: SyncNamespace>(_ namespace: N.Type, key: [UInt8]) throws(SyncKernelError) -> [N.Row] {
        let versions = try books.versions(N.name, key).filter(\.isLive)
            .sorted { $0.vector.encoded().lexicographicallyPrecedes($1.vector.encoded()) }
        var rows: [N.Row] = []
        for version in versions {
            if let bytes = version.row { rows.append(try N.decodeRow(bytes: bytes)) }
        }
        return rows
    }

    // MARK: Quarantine

    /// Every quarantined row of the store, in the order they were quarantined (the log of
    /// quarantines, kept in the store itself).
    public func quarantinedRows() throws(SyncKernelError) -> [QuarantinedRow] {
        try books.quarantined()
    }

    /// The rows quarantined since the last call (the first call also returns those quarantined
    /// at open), each once. `Replica` calls it after every step and reports them as
    /// `ReplicaEvent.rowsQuarantined`; a host that drives the store itself calls it instead.
    public func takeNewlyQuarantined() -> [QuarantinedRow] {
        defer { pendingQuarantined.removeAll() }
        return pendingQuarantined
    }

    /// Quarantines `damaged` in one transaction (each row leaves its table and its item the
    /// structure, and its quarantine entry is written) and adopts the structures; nothing is
    /// written when the list is empty.
    func quarantine(_ damaged: [DamagedRow], site: QuarantineSite) throws(SyncKernelError) {
        guard !damaged.isEmpty else { return }
        let writer = makeWriter()
        try db.transaction { () throws(SyncKernelError) in
            for damage in damaged { try writer.quarantine(damage, site: site) }
            try persist(writer)
        }
        adopt(writer)
    }

    /// The RowVersion bookkeeping of a row, if it has any.
    public func version(namespace: String, key: [UInt8]) throws(SyncKernelError) -> RowVersion? {
        try books.version(namespace, key)
    }

    /// The delete versions of a namespace, in key order (a key may have several concurrent ones).
    public func tombstones(namespace: String) throws(SyncKernelError) -> [Tombstone] {
        try books.tombstones(namespace)
    }

    /// The leaves of a namespace in key order, read from the stored rows (a scan of the
    /// namespace: for tests, tools and the spec's exchange, not for the sync path).
    public func leaves(namespace: String) throws(SyncKernelError) -> [Leaf] {
        _ = try namespaces.driver(named: namespace)
        return try books.leaves(namespace)
    }

    /// The stored leaf hash of one row (nil for no row or a device-derived one), by key.
    public func leafHash(namespace: String, key: [UInt8]) throws(SyncKernelError) -> [UInt8]? {
        _ = try namespaces.driver(named: namespace)
        return try books.leaf(namespace, key)
    }

    // MARK: Digest

    /// The current digest in the set-hash layout: one root per namespace, read from the
    /// persisted structures.
    ///
    /// Served from a cache until a committed write or apply moves an item, so asking again with
    /// nothing changed costs no hashing, and asking after a change costs one hash per changed
    /// namespace, never a scan.
    public func stateDigest() -> StateDigest {
        currentDigest().digest
    }

    /// The wire form of `stateDigest()` (`StateDigest.encoded()`), served from the same cache.
    public func encodedStateDigest() -> [UInt8] {
        currentDigest().encoded
    }

    /// Each namespace's item change counter, in name order: additions plus removals since its
    /// structure was built. Peers compare counters across exchanges to size a sketch request.
    public func changeCounters() -> [UInt64] {
        namespaces.names.map { structures[$0]?.changes ?? 0 }
    }

    /// Each namespace's item count, in name order.
    public func itemCounts() -> [Int64] {
        namespaces.names.map { structures[$0]?.count ?? 0 }
    }

    /// The digest in the spec's Merkle layout, for a peer that speaks only the spec.
    ///
    /// A namespace's Merkle root needs every item in key order (a key's leaf, or its conflict item
    /// while it keeps concurrent versions): it is computed by a scan of the namespace's stored
    /// leaves the first time a spec peer needs it after the namespace changed, then cached until
    /// its items move again.
    public func merkleDigest() throws(SyncKernelError) -> StateDigest {
        var roots: [[UInt8]] = []
        for name in namespaces.names {
            if let root = merkleRoots[name] {
                roots.append(root)
            } else {
                let root = SortedLeaves(sorted: try StructureItems.items(try namespaces.driver(named: name), books: books)).root
                merkleRoots[name] = root
                roots.append(root)
            }
        }
        return StateDigest(layout: .merkle, schema: namespaces.schema, namespaces: namespaces.names, roots: roots)
    }

    /// The cached digest and its encoding, computed from the structures when an item moved since.
    private func currentDigest() -> (digest: StateDigest, encoded: [UInt8]) {
        if let cachedDigest { return cachedDigest }
        let names = namespaces.names
        let roots = names.map { structures[$0]?.root ?? SetHash.emptyRoot }
        let digest = StateDigest(layout: .setHash, schema: namespaces.schema, namespaces: names, roots: roots)
        let computed = (digest: digest, encoded: digest.encoded())
        cachedDigest = computed
        return computed
    }

    /// The set-hash digest recomputed from the stored rows by a full scan, decoding every row and
    /// ignoring the stored leaves and structures.
    ///
    /// Equal to `stateDigest()` whenever the store is healthy; use it to audit the structures, or
    /// to measure what they save.
    public func recomputedStateDigest() throws(SyncKernelError) -> StateDigest {
        var roots: [[UInt8]] = []
        for driver in namespaces.drivers {
            roots.append(try NamespaceStructure.building(try decodedItems(driver)).root)
        }
        return StateDigest(layout: .setHash, schema: namespaces.schema, namespaces: namespaces.names, roots: roots)
    }

    /// Checks every namespace's structure three ways: the one in memory, the one persisted (read
    /// back from the tables) and one rebuilt from the stored rows (decoded) must hold the same
    /// items. Throws `corruptBookkeeping` naming the first namespace where they differ.
    public func verifyStructures() throws(SyncKernelError) {
        for driver in namespaces.drivers {
            let rebuilt = try NamespaceStructure.building(try decodedItems(driver))
            guard let persisted = try NamespaceStructure.load(driver.name, from: books),
                  let memory = structures[driver.name],
                  persisted.holdsSameItems(as: rebuilt), memory.holdsSameItems(as: rebuilt),
                  persisted.changes == memory.changes else {
                throw SyncKernelError(.corruptBookkeeping, "the structure of \(driver.name) differs from its rows")
            }
        }
    }

    /// The items of a namespace computed from its rows decoded (not from the leaves stored beside
    /// them): each synced row's leaf, or its conflict item when it keeps live versions.
    private func decodedItems(_ driver: NamespaceDriver) throws(SyncKernelError) -> [Leaf] {
        var items: [Leaf] = []
        for bytes in try books.allRows(driver.name) {
            let row = try driver.inspect(bytes)
            guard !row.isDeviceDerived else { continue }
            items.append(Leaf(key: row.key, hash: try StructureItems.item(row.key, leaf: row.leaf.hash, driver: driver, books: books)))
        }
        return items
    }

    /// Payload bytes of a namespace's persisted structure (header, non-zero symbols, non-empty
    /// buckets), without SQLite's own page overhead.
    public func structureBytes(namespace: String) throws(SyncKernelError) -> Int {
        _ = try namespaces.driver(named: namespace)
        return try books.structureBytes(namespace)
    }

    /// The committed structure of a namespace (empty for an unknown name).
    func structure(_ namespace: String) -> NamespaceStructure {
        structures[namespace] ?? NamespaceStructure()
    }

    /// A writer over this store's committed structures.
    /// The rows after which one write or apply counts as a bulk write and runs with
    /// `SQLiteConnection.bulkPageCacheKibibytes` of page cache until it ends (`RowWriter`).
    package static var bulkWriteRows: Int { RowWriter.bulkRows }

    func makeWriter() -> RowWriter {
        RowWriter(books: books, namespaces: namespaces) { [unowned self] namespace in self.structure(namespace) }
    }

    /// Writes a writer's changed structure parts; the last step inside its transaction.
    func persist(_ writer: RowWriter) throws(SyncKernelError) {
        let started = ContinuousClock.now
        defer { structureUpkeepTime += started.duration(to: .now) + writer.moveTime }
        try writer.persist()
    }

    /// Adopts a committed writer's structures and quarantined rows, and drops the caches of the
    /// namespaces whose items changed; returns those namespaces.
    @discardableResult
    func adopt(_ writer: RowWriter) -> Set<String> {
        pendingQuarantined += writer.quarantined
        var changed: Set<String> = []
        for (name, structure) in writer.structures {
            if let before = structures[name], before.count == structure.count, before.setHash == structure.setHash {
                structures[name] = structure
                continue
            }
            structures[name] = structure
            changed.insert(name)
            merkleRoots[name] = nil
        }
        if !changed.isEmpty { cachedDigest = nil }
        return changed
    }
}
