import SQLiteStore

/// A store's summary (`StoreSummary`): from the open store, or from its file without opening it
/// for writing, so a tool can read it while a device runs on the store.
///
/// Invariants: reading from a file writes nothing to it (a read-only SQLite connection, no
/// lease, no migration, no journal mode change) and refuses a file that is not a store exactly as
/// `init` does; both forms report the same namespaces, items, roots and open conflicts for the
/// same commits.
extension KernelStore {
    /// The open store's summary, from its committed structures (no row is read) and the count of
    /// open conflicts (one indexed query over the kept versions; nil counts when it fails).
    public func summary() -> StoreSummary {
        let conflicts = try? books.openConflictCounts()
        let namespaces = zip(namespaces.names, itemCounts()).map { name, items in
            StoreSummary.Namespace(name: name, items: items, root: structure(name).root,
                                   openConflicts: conflicts.map { $0[name] ?? 0 })
        }
        return StoreSummary(device: device, namespaces: namespaces)
    }

    /// The summary of the store at `path`, read through a read-only connection while another
    /// process may be writing it (SQLite WAL: the read sees the last committed transactions).
    ///
    /// Lists every namespace whose row table the file holds, with the items and root of its
    /// persisted structure's header (a namespace whose structure is missing or of another format,
    /// which the next open rebuilds, shows the root of its stored leaves, built in memory). Throws `notAStore` for a missing,
    /// empty or non-SQLite file, `foreignDatabase` for another application's database, and
    /// `corruptBookkeeping` for a structure or device record that does not read.
    public static func summary(storedAt path: String) throws(SyncKernelError) -> StoreSummary {
        guard try StoreFile.classify(path) != .missing else { throw SyncKernelError(.notAStore, "no file") }
        let db = try SQLiteConnection<SyncKernelError>(readingOnly: path)
        defer { db.close() }
        return try db.transaction(writing: false) { () throws(SyncKernelError) -> StoreSummary in
            let tables = Set(try db.tableNames())
            let books = Bookkeeping(db: db)
            let conflicts = tables.contains("sk_version") ? try books.openConflictCounts() : [:]
            var namespaces: [StoreSummary.Namespace] = []
            for table in tables.sorted() where table.hasPrefix("ns_") {
                let name = String(table.dropFirst(3))
                if tables.contains("sk_structure"), let header = try books.structure(name), header.format == NamespaceStructure.format {
                    guard header.count >= 0, header.count <= NamespaceStructure.maxCount else {
                        throw SyncKernelError(.corruptBookkeeping, "an item count out of range in \(name)")
                    }
                    let root = try SetHash(decoding: header.setHash).root(count: header.count)
                    namespaces.append(StoreSummary.Namespace(name: name, items: header.count, root: root,
                                                                 openConflicts: conflicts[name] ?? 0))
                } else {
                    let rebuilt = try NamespaceStructure.building(try books.leaves(name))
                    namespaces.append(StoreSummary.Namespace(name: name, items: rebuilt.count, root: rebuilt.root,
                                                                 openConflicts: conflicts[name] ?? 0))
                }
            }
            let device = tables.contains("sk_device") ? try EpochLedger(db: db, path: nil).record()?.epoch.device : nil
            return StoreSummary(device: device, namespaces: namespaces)
        }
    }
}
