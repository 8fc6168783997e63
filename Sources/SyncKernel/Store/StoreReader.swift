import SQLiteStore

/// A store's file read without opening it for writing: what `synckernel inspect`, `diff` and the
/// static counts read.
///
/// Invariants: the file is classified as `KernelStore` does before anything is read (a missing
/// file, one that is not SQLite or another application's database is refused with the same
/// errors) and then read through a read-only SQLite connection: no lease, no migration, no
/// journal mode change, nothing written, so it can read a store a device is running on (it sees
/// the last committed transactions). Each call reads in one read-only transaction, so what it
/// returns is one consistent state. Rows are returned as stored, undecoded: a damaged entry shows
/// as it is. Not `Sendable`: one owner uses it, then closes it.
package final class StoreReader {
    /// The read-only connection.
    let db: SQLiteConnection<SyncKernelError>
    /// The kernel's queries over `db`.
    let books: Bookkeeping
    /// The kernel tables the file holds (an earlier build's store may lack some).
    let tables: Set<String>

    /// Opens the store at `path` to read only.
    package init(path: String) throws(SyncKernelError) {
        guard try StoreFile.classify(path) != .missing else { throw SyncKernelError(.notAStore, "no file") }
        db = try SQLiteConnection<SyncKernelError>(readingOnly: path)
        books = Bookkeeping(db: db)
        do {
            tables = Set(try db.tableNames())
        } catch {
            db.close()
            throw error
        }
    }

    /// Closes the connection; the reader is unusable afterwards.
    package func close() {
        db.close()
    }

    /// The namespaces whose row tables the file holds, in name order.
    package var namespaces: [String] {
        tables.filter { $0.hasPrefix("ns_") }.map { String($0.dropFirst(3)) }.sorted()
    }

    /// Whether the file holds kept versions with the columns this build reads (`writer`, `leaf`).
    func versionColumns() throws(SyncKernelError) -> Bool {
        guard tables.contains("sk_version") else { return false }
        let statement = try db.statement("SELECT COUNT(*) FROM pragma_table_info('sk_version') WHERE name IN ('writer', 'leaf')")
        return try statement.first { $0.int64(0) } == 2
    }

    /// The number of keys in conflict per namespace the file holds (0 for none).
    package func openConflictCounts() throws(SyncKernelError) -> [String: Int] {
        try db.transaction(writing: false) { () throws(SyncKernelError) -> [String: Int] in
            let counted = tables.contains("sk_version") ? try books.openConflictCounts() : [:]
            return Dictionary(uniqueKeysWithValues: namespaces.map { ($0, counted[$0] ?? 0) })
        }
    }

    /// Everything stored for `key` in `namespace`, nil when the namespace holds neither a row nor
    /// a kept version of it. Throws `unknownNamespace` for a namespace the file does not hold.
    package func key(_ key: [UInt8], namespace: String) throws(SyncKernelError) -> StoredKey? {
        guard namespaces.contains(namespace) else { throw SyncKernelError(.unknownNamespace) }
        return try db.transaction(writing: false) { () throws(SyncKernelError) -> StoredKey? in try read(key, namespace: namespace) }
    }

    /// Every key `namespace` holds a row or a kept version of, with what is stored for it, in key
    /// order (one read-only transaction). Throws `unknownNamespace` for a namespace the file does
    /// not hold.
    package func keys(namespace: String) throws(SyncKernelError) -> [StoredKey] {
        guard namespaces.contains(namespace) else { throw SyncKernelError(.unknownNamespace) }
        return try db.transaction(writing: false) { () throws(SyncKernelError) -> [StoredKey] in try everyKey(namespace) }
    }

    /// `keys(namespace:)` inside the caller's transaction.
    func everyKey(_ namespace: String) throws(SyncKernelError) -> [StoredKey] {
        var keys = Set(try books.keyedRows(namespace).map(\.key))
        if tables.contains("sk_version") {
            let statement = try db.statement("SELECT DISTINCT key FROM sk_version WHERE ns = ?")
            statement.bind(1, namespace)
            while try statement.step() { keys.insert(statement.blob(0)) }
        }
        var out: [StoredKey] = []
        for key in keys.sorted(by: [UInt8].keyPrecedes) {
            if let stored = try read(key, namespace: namespace) { out.append(stored) }
        }
        return out
    }

    /// The stored record of `key`, reading the columns an earlier build's row table lacks as NULL.
    private func record(_ key: [UInt8], namespace: String) throws(SyncKernelError) -> StoredRecord? {
        let table = Bookkeeping.rowTable(namespace)
        let statement = try db.statement("SELECT name FROM pragma_table_info('\(table)')")
        var columns: Set<String> = []
        while try statement.step() { columns.insert(statement.text(0)) }
        let wanted = ["leaf", "changed", "vector", "synced_at", "content_vector", "writer"]
        let select = (["row"] + wanted.map { columns.contains($0) ? $0 : "NULL" }).joined(separator: ", ")
        let query = try db.statement("SELECT \(select) FROM \(table) WHERE key = ?")
        query.bind(1, key)
        return try query.first { row in
            let leaf = row.isNull(1) ? nil : row.blob(1)
            return StoredRecord(row: row.blob(0), leaf: leaf.flatMap { $0.isEmpty ? nil : $0 },
                                changed: row.isNull(2) ? nil : UInt64(bitPattern: row.int64(2)),
                                vector: row.isNull(3) ? nil : row.blob(3), syncedAt: row.int64(4),
                                contentVector: row.isNull(5) ? [] : row.blob(5), writer: Bookkeeping.writer(in: row, at: 6))
        }
    }

    /// What is stored for `key`, inside the caller's transaction.
    func read(_ key: [UInt8], namespace: String) throws(SyncKernelError) -> StoredKey? {
        let record = try record(key, namespace: namespace)
        var versions: [VersionEntry] = []
        if try versionColumns() {
            versions = try books.versionEntries(namespace, key)
        } else if tables.contains("sk_version") {
            let statement = try db.statement("SELECT vector, row FROM sk_version WHERE ns = ? AND key = ? ORDER BY vector")
            statement.bind(1, namespace).bind(2, key)
            while try statement.step() {
                versions.append(VersionEntry(vector: statement.blob(0), row: statement.isNull(1) ? nil : statement.blob(1),
                                             writer: nil, leaf: nil))
            }
        }
        guard record != nil || !versions.isEmpty else { return nil }
        let item = try record?.leaf.map { (leaf) throws(SyncKernelError) in
            try versionColumns() ? try StructureItems.item(key, leaf: leaf, namespace: namespace, books: books) : leaf
        }
        return StoredKey(key: key, row: record?.row, leaf: record?.leaf, item: item, vector: record?.vector,
                         contentVector: record?.contentVector ?? [], syncedAt: record?.syncedAt ?? 0, writer: record?.writer,
                         changed: record?.changed, versions: versions)
    }
}
