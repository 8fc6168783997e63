import SQLiteStore

/// The reads a whole-store snapshot pages through, and the absence check its import makes.
///
/// Invariant: every read is bounded by its `limit` and starts strictly after a cursor key, so a
/// caller pages through a namespace in key order holding one page at a time; nothing here writes.
extension Bookkeeping {
    /// Up to `limit` stored records of a namespace with keys after `cursor` (from the first key
    /// when nil), in key order.
    func records(_ namespace: String, after cursor: [UInt8]?, limit: Int) throws(SyncKernelError) -> [(key: [UInt8], record: StoredRecord)] {
        let table = Bookkeeping.rowTable(namespace)
        let columns = "row, leaf, changed, vector, synced_at, content_vector, key"
        let statement: SQLiteStatement<SyncKernelError>
        if let cursor {
            statement = try db.statement("SELECT \(columns) FROM \(table) WHERE key > ? ORDER BY key LIMIT ?")
            statement.bind(1, cursor).bind(2, Int64(limit))
        } else {
            statement = try db.statement("SELECT \(columns) FROM \(table) ORDER BY key LIMIT ?")
            statement.bind(1, Int64(limit))
        }
        var out: [(key: [UInt8], record: StoredRecord)] = []
        while try statement.step() { out.append((statement.blob(6), Bookkeeping.record(in: statement, from: 0))) }
        return out
    }

    /// Up to `limit` distinct keys of a namespace holding at least one delete version, with keys
    /// after `cursor` (from the first key when nil), in key order.
    func deletedKeys(_ namespace: String, after cursor: [UInt8]?, limit: Int) throws(SyncKernelError) -> [[UInt8]] {
        let statement: SQLiteStatement<SyncKernelError>
        if let cursor {
            statement = try db.statement("""
                SELECT DISTINCT key FROM sk_version WHERE ns = ? AND row IS NULL AND key > ? ORDER BY key LIMIT ?
                """)
            statement.bind(1, namespace).bind(2, cursor).bind(3, Int64(limit))
        } else {
            statement = try db.statement("SELECT DISTINCT key FROM sk_version WHERE ns = ? AND row IS NULL ORDER BY key LIMIT ?")
            statement.bind(1, namespace).bind(2, Int64(limit))
        }
        var out: [[UInt8]] = []
        while try statement.step() { out.append(statement.blob(0)) }
        return out
    }

    /// Whether the namespace holds nothing under `key`: no row (synced or device-derived) and no
    /// kept version (no concurrent live version, no delete).
    func isAbsent(_ namespace: String, _ key: [UInt8]) throws(SyncKernelError) -> Bool {
        let statement = try db.statement("""
            SELECT NOT EXISTS(SELECT 1 FROM \(Bookkeeping.rowTable(namespace)) WHERE key = ?)
                AND NOT EXISTS(SELECT 1 FROM sk_version WHERE ns = ? AND key = ?)
            """)
        statement.bind(1, key).bind(2, namespace).bind(3, key)
        return try statement.first { $0.int64(0) != 0 } ?? false
    }
}
