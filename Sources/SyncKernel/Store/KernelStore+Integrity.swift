import SQLiteStore

/// The store's audit: SQLite's own check, every structure against a rescan, every stored row
/// through the same checks the store applies where it reads rows, and the repair of what it finds.
///
/// Invariants: `checkIntegrity` writes nothing and holds one row in memory at a time (plus the
/// damage it lists and one rescanned structure); `repair` quarantines exactly the damaged rows
/// in one transaction and then rebuilds exactly the structures that differed, each in its own.
extension KernelStore {
    /// The namespaces whose row tables the store at `path` holds, in name order, read without
    /// opening the store for writing (a tool opens the store with those it knows). Throws
    /// `notAStore` for a missing file, and refuses a file that is not a store as `init` does.
    public static func namespaceNames(storedAt path: String) throws(SyncKernelError) -> [String] {
        try StoreFile.storedNamespaces(path).sorted()
    }

    /// Checks the whole store without changing it: SQLite's `PRAGMA integrity_check`; for each
    /// namespace, that its persisted and in-memory structures equal a rescan of the items stored
    /// beside its rows (each row's leaf, or for a key in conflict the conflict item of the leaves
    /// stored beside its versions); that every stored row decodes to its key and its stored leaf and
    /// its RowVersion decodes, and every kept version's vector (and live row, to the leaf stored
    /// beside it) decodes; and it
    /// lists the quarantined rows. A row whose decoded leaf differs from its stored leaf is a
    /// damaged row, not a differing structure (the structure is checked against the stored leaves).
    /// A page SQLite cannot read stops that namespace's scan (or SQLite's own check) and is
    /// listed among `sqliteProblems`; the other namespaces are still checked.
    public func checkIntegrity() throws(SyncKernelError) -> IntegrityReport {
        try Self.audit(db: db, books: books, namespaces: namespaces) { namespace in self.structure(namespace) }
    }

    /// `checkIntegrity()` of the store at `path` through a read-only connection, in one read
    /// transaction (one consistent state), for a store another process has open for writing: the
    /// same checks, except that there is no in-memory structure to compare (the persisted one is
    /// compared with the rescan). Writes nothing, takes no lock, migrates nothing: read a store as
    /// its running device left it (a device migrates its store when it opens it). Throws
    /// `notAStore` for a missing file and refuses a file that is not a store as `init` does.
    public static func checkIntegrity(storedAt path: String, namespaces: NamespaceSet) throws(SyncKernelError) -> IntegrityReport {
        guard try StoreFile.classify(path) != .missing else { throw SyncKernelError(.notAStore, "no file") }
        let db = try SQLiteConnection<SyncKernelError>(readingOnly: path)
        defer { db.close() }
        let books = Bookkeeping(db: db)
        return try db.transaction(writing: false) { () throws(SyncKernelError) -> IntegrityReport in
            try audit(db: db, books: books, namespaces: namespaces, memory: nil)
        }
    }

    /// The checks of `checkIntegrity` over `db`; `memory` gives a namespace's in-memory structure
    /// to compare too (nil: only the persisted one).
    private static func audit(db: SQLiteConnection<SyncKernelError>, books: Bookkeeping, namespaces: NamespaceSet,
                              memory: ((String) -> NamespaceStructure)?) throws(SyncKernelError) -> IntegrityReport {
        var sqliteProblems: [String] = []
        do {
            sqliteProblems = try db.integrityProblems()
        } catch where error.code == .sqlite {
            sqliteProblems.append("integrity_check stopped: \(error.detail)")
        }
        var differing: [String] = []
        var damaged: [DamagedRow] = []
        var checked = 0
        for driver in namespaces.drivers {
            do throws(SyncKernelError) {
                var rescan = NamespaceStructure()
                let conflicted = Set(try books.conflictedKeys(driver.name))
                var conflictLeaves: [(key: [UInt8], leaf: [UInt8])] = []
                try books.forEachRecord(driver.name) { (key, record) throws(SyncKernelError) in
                    checked += 1
                    if let leaf = record.leaf {
                        if conflicted.contains(key) { conflictLeaves.append((key, leaf)) } else { try rescan.move(key: key, from: nil, to: leaf) }
                    }
                    if case .damaged(let reason) = StoredRowCheck.visible(key, record, driver: driver) {
                        damaged.append(DamagedRow(namespace: driver.name, key: key, row: record.row, reason: reason))
                    }
                }
                for (key, leaf) in conflictLeaves {
                    try rescan.move(key: key, from: nil, to: try StructureItems.item(key, leaf: leaf, driver: driver, books: books))
                }
                try books.forEachVersionEntry(driver.name) { key, entry in
                    checked += 1
                    let verdict = StoredRowCheck.kept(key, vector: entry.vector, row: entry.row, leaf: entry.leaf, driver: driver)
                    if case .damaged(let reason) = verdict {
                        damaged.append(DamagedRow(namespace: driver.name, key: key, row: entry.row ?? [], vector: entry.vector, reason: reason))
                    }
                }
                if try !structureMatches(driver.name, rescan: rescan, books: books, memory: memory) { differing.append(driver.name) }
            } catch where error.code == .sqlite {
                sqliteProblems.append("\(driver.name): the scan stopped: \(error.detail)")
            }
        }
        return IntegrityReport(sqliteProblems: sqliteProblems, differingStructures: differing, damagedRows: damaged,
                               quarantined: try books.quarantined(), rowsChecked: checked)
    }

    /// Repairs what `checkIntegrity` finds and the store can repair: every damaged row is
    /// quarantined (site `repair`, one transaction), then every structure that differed is
    /// rebuilt from the stored leaves. What SQLite's own check reports it cannot repair; check
    /// again afterwards to see what is left.
    @discardableResult
    public func repair() throws(SyncKernelError) -> RepairOutcome {
        let found = try checkIntegrity()
        let writer = makeWriter()
        try db.transaction { () throws(SyncKernelError) in
            for damage in found.damagedRows { try writer.quarantine(damage, site: .repair) }
            try persist(writer)
        }
        adopt(writer)
        for namespace in found.differingStructures { try rebuildStructure(namespace) }
        return RepairOutcome(quarantined: writer.quarantined, rebuiltStructures: found.differingStructures)
    }

    /// Whether a namespace's persisted structure reads and both it and the one in memory (when
    /// `memory` gives one) hold the items of `rescan` (with one change counter between them).
    private static func structureMatches(_ namespace: String, rescan: NamespaceStructure, books: Bookkeeping,
                                         memory: ((String) -> NamespaceStructure)?) throws(SyncKernelError) -> Bool {
        let persisted: NamespaceStructure?
        do {
            persisted = try NamespaceStructure.load(namespace, from: books)
        } catch where error.code == .corruptBookkeeping {
            return false
        }
        guard let persisted, persisted.holdsSameItems(as: rescan) else { return false }
        guard let memory else { return true }
        let held = memory(namespace)
        return held.holdsSameItems(as: rescan) && persisted.changes == held.changes
    }
}
