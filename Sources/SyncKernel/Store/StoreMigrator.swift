import SQLiteStore

/// Brings a store file to what this build reads, as it opens: the kernel's own tables and the
/// change log, then for each namespace its row table, its row format (through the namespace's
/// `RowMigration`), the stored leaves of its rows and kept versions, and its persisted structure
/// (loaded, or rebuilt from the leaves).
///
/// Invariants: each step runs in one transaction of its own and writes nothing when it finds
/// nothing to do, so a store of this build opens reading a fixed number of symbols and buckets
/// per namespace and no row; a damaged row a step meets is quarantined in that step's transaction
/// and listed until `takeQuarantined()`; a row format with no migration, or a migration that
/// fails on a row that is CBOR or changes a row's key, refuses the open (`rowFormatChanged`).
struct StoreMigrator {
    let db: SQLiteConnection<SyncKernelError>
    let books: Bookkeeping
    let namespaces: NamespaceSet
    /// Rows quarantined by the steps so far, not yet taken.
    private var quarantined: [QuarantinedRow] = []

    init(db: SQLiteConnection<SyncKernelError>, books: Bookkeeping, namespaces: NamespaceSet) {
        self.db = db
        self.books = books
        self.namespaces = namespaces
    }

    /// Creates the kernel's tables a store lacks and upgrades those of an earlier build; gives a
    /// store from before the change log one, with an entry for every row it holds.
    func prepareTables() throws(SyncKernelError) {
        try db.execute(Bookkeeping.schema)
        try books.upgradeKernelTables()
        try db.execute(EpochLedger.schema)
        try db.execute(KernelStore.changeMarkSchema)
        try db.execute(KernelStore.pushBaseSchema)
        if try !books.hasChangeLog() {
            let tables = Set(try db.tableNames())
            let stored = namespaces.names.filter { tables.contains(Bookkeeping.rowTable($0)) }
            try db.transaction { () throws(SyncKernelError) in try books.createChangeLog(covering: stored) }
        }
    }

    /// Brings `driver`'s namespace to this build and returns its structure: the persisted one
    /// when its rows were not rewritten and it reads, otherwise one rebuilt from the leaves.
    mutating func migrate(_ driver: NamespaceDriver) throws(SyncKernelError) -> NamespaceStructure {
        try books.createRowTable(driver.name)
        try db.transaction { () throws(SyncKernelError) in try books.adoptLegacyVersions(driver.name) }
        let migrated = try migrateRowFormat(driver)
        let filled = try storeMissingVersionLeaves(driver)
        if !migrated, !filled, let loaded = try loadStructure(driver.name) { return loaded }
        try storeMissingLeaves(driver)
        return try rebuiltStructure(driver.name)
    }

    /// The rows quarantined since the last call.
    mutating func takeQuarantined() -> [QuarantinedRow] {
        defer { quarantined.removeAll() }
        return quarantined
    }

    /// A namespace's persisted structure, nil when none is stored, it has another format, or it
    /// no longer reads (a damaged symbol, bucket or header): then it is rebuilt from the leaves.
    private func loadStructure(_ namespace: String) throws(SyncKernelError) -> NamespaceStructure? {
        do {
            return try NamespaceStructure.load(namespace, from: books)
        } catch where error.code == .corruptBookkeeping {
            return nil
        }
    }

    /// Builds a namespace's structure from its stored leaves and persists it, in one transaction.
    /// The leaves are streamed into the structure one at a time: memory holds the structure and
    /// one row, never a list of every row.
    func rebuiltStructure(_ namespace: String) throws(SyncKernelError) -> NamespaceStructure {
        let changes = try books.structure(namespace)?.changes ?? 0
        let driver = try namespaces.driver(named: namespace)
        var structure = try NamespaceStructure.building(changes: changes) { add throws(SyncKernelError) in
            try StructureItems.forEachItem(driver, books: books, add)
        }
        try db.transaction { () throws(SyncKernelError) in
            try books.clearStructure(namespace)
            try structure.persist(namespace, into: books)
        }
        return structure
    }

    /// Stores the leaf of every kept live version that has none yet (a store from before kept
    /// versions carried theirs), in one transaction that also quarantines the versions that no
    /// longer decode (or decode to another key); returns whether it stored any, since the
    /// namespace's structure, built when kept versions were not part of its items, must then be
    /// rebuilt.
    private mutating func storeMissingVersionLeaves(_ driver: NamespaceDriver) throws(SyncKernelError) -> Bool {
        let missing = try books.liveVersionsWithoutLeaf(driver.name)
        guard !missing.isEmpty else { return false }
        let quarantined = try db.transaction { () throws(SyncKernelError) -> [QuarantinedRow] in
            var quarantined: [QuarantinedRow] = []
            for version in missing {
                switch StoredRowCheck.kept(version.key, vector: version.vector, row: version.row, driver: driver) {
                case .usable:
                    try books.setVersionLeaf(driver.name, key: version.key, vector: version.vector,
                                             leaf: try driver.inspect(version.row).leaf.hash)
                case .damaged(let reason):
                    let damage = DamagedRow(namespace: driver.name, key: version.key, row: version.row, vector: version.vector,
                                            reason: reason)
                    if let entry = try books.quarantine(damage, site: .open) { quarantined.append(entry) }
                }
            }
            return quarantined
        }
        self.quarantined += quarantined
        return true
    }

    /// Stores the leaf of every row that has none yet (a store from before rows kept their
    /// leaves), in one transaction that also quarantines the rows that no longer decode (or
    /// decode to another key); afterwards the store opens without decoding a row.
    private mutating func storeMissingLeaves(_ driver: NamespaceDriver) throws(SyncKernelError) {
        let missing = try books.rowsWithoutLeaf(driver.name)
        guard !missing.isEmpty else { return }
        let quarantined = try db.transaction { () throws(SyncKernelError) -> [QuarantinedRow] in
            var quarantined: [QuarantinedRow] = []
            for (key, bytes) in missing {
                let reason: QuarantineReason
                switch StoredRowCheck.decoded(key, bytes, driver: driver) {
                case .usable(let row):
                    try books.putRow(driver.name, key, bytes, leaf: row.isDeviceDerived ? nil : row.leaf.hash)
                    continue
                case .damaged(let found):
                    reason = found
                }
                let damage = DamagedRow(namespace: driver.name, key: key, row: bytes, reason: reason)
                if let entry = try books.quarantine(damage, site: .open) { quarantined.append(entry) }
            }
            return quarantined
        }
        self.quarantined += quarantined
    }

    /// Brings a namespace's stored rows (and kept concurrent versions) to the current row format;
    /// returns whether stored rows were rewritten. A stored row whose bytes are not CBOR at all
    /// is damage, not the migration's fault: it is quarantined in the migration's transaction.
    private mutating func migrateRowFormat(_ driver: NamespaceDriver) throws(SyncKernelError) -> Bool {
        let stored = try books.rowFormat(driver.name)
        guard stored != driver.rowFormatID else { return false }
        let quarantined = try db.transaction { () throws(SyncKernelError) -> [QuarantinedRow] in
            var quarantined: [QuarantinedRow] = []
            if let stored {
                /// The row in the current format; nil for bytes that are not CBOR (damage).
                func migrated(_ key: [UInt8], _ bytes: [UInt8]) throws(SyncKernelError) -> [UInt8]? {
                    let rewritten: [UInt8]?
                    do {
                        rewritten = try driver.migrate(stored, bytes)
                    } catch {
                        if (try? CBORReader.decode(bytes)) == nil { return nil }
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
                func setAside(_ damage: DamagedRow) throws(SyncKernelError) {
                    if let entry = try books.quarantine(damage, site: .open) { quarantined.append(entry) }
                }
                for (key, bytes) in try books.keyedRows(driver.name) {
                    guard let rewritten = try migrated(key, bytes) else {
                        try setAside(DamagedRow(namespace: driver.name, key: key, row: bytes, reason: .undecodable))
                        continue
                    }
                    let row = try driver.inspect(rewritten)
                    try books.putRow(driver.name, key, rewritten, leaf: row.isDeviceDerived ? nil : row.leaf.hash)
                }
                for version in try books.liveVersionRows(driver.name) {
                    guard let rewritten = try migrated(version.key, version.row) else {
                        try setAside(DamagedRow(namespace: driver.name, key: version.key, row: version.row, vector: version.vector,
                                                reason: .undecodable))
                        continue
                    }
                    try books.replaceVersionRow(driver.name, key: version.key, vector: version.vector, row: rewritten,
                                                leaf: try driver.inspect(rewritten).leaf.hash)
                }
            }
            try books.setRowFormat(driver.name, driver.rowFormatID)
            return quarantined
        }
        self.quarantined += quarantined
        return stored != nil
    }
}
