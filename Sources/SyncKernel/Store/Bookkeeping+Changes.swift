import SQLiteStore

/// SQL access to the change log: for each key of each namespace, the sequence number of the last
/// committed change to its row or its kept versions, and where that change came from.
///
/// Invariants: one entry per (namespace, key), replaced by every later change, so the log holds
/// at most one entry per key ever written (a deleted key keeps its entry: the change was its
/// delete); sequence numbers are unique across the store and only grow (`sk_change_head` keeps
/// the last one handed out, so a replaced entry's number is never handed out again); entries and
/// the head are written inside the transaction of the change they describe.
extension Bookkeeping {
    static let changeSchema = """
        CREATE TABLE IF NOT EXISTS sk_change(
            ns TEXT NOT NULL, key BLOB NOT NULL, seq INTEGER NOT NULL, origin BLOB, PRIMARY KEY(ns, key)) WITHOUT ROWID;
        CREATE UNIQUE INDEX IF NOT EXISTS sk_change_seq ON sk_change(ns, seq);
        CREATE TABLE IF NOT EXISTS sk_change_head(slot INTEGER PRIMARY KEY CHECK(slot = 0), seq INTEGER NOT NULL);
        """

    /// Whether the file holds the change log.
    func hasChangeLog() throws(SyncKernelError) -> Bool {
        try db.statement("SELECT EXISTS(SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sk_change')")
            .first { $0.int64(0) != 0 } ?? false
    }

    /// Creates the change log with an entry for every row `namespaces` already store, numbered in
    /// namespace and key order (origin `local`), so a consumer starting from the beginning reads
    /// every row. The caller runs it inside a transaction, after the row tables exist.
    func createChangeLog(covering namespaces: [String]) throws(SyncKernelError) {
        try db.execute(Bookkeeping.changeSchema)
        var last: Int64 = 0
        for namespace in namespaces {
            try db.statement("""
                INSERT INTO sk_change(ns, key, seq, origin)
                SELECT ?, key, ? + ROW_NUMBER() OVER (ORDER BY key), NULL FROM \(Bookkeeping.rowTable(namespace))
                """).bind(1, namespace).bind(2, last).run()
            last += Int64(try rowCount(namespace))
        }
        try setLastChangeSequence(last)
    }

    /// The last sequence number handed out (0 before any).
    func lastChangeSequence() throws(SyncKernelError) -> Int64 {
        try db.statement("SELECT seq FROM sk_change_head WHERE slot = 0").first { $0.int64(0) } ?? 0
    }

    /// Records `sequence` as the last one handed out.
    func setLastChangeSequence(_ sequence: Int64) throws(SyncKernelError) {
        try db.statement("INSERT OR REPLACE INTO sk_change_head(slot, seq) VALUES(0, ?)").bind(1, sequence).run()
    }

    /// Records a change of `key` under `sequence`, replacing the key's earlier entry.
    func putChange(_ namespace: String, _ key: [UInt8], sequence: Int64, origin: ChangeOrigin) throws(SyncKernelError) {
        let statement = try statement(.putChange) { "INSERT OR REPLACE INTO sk_change(ns, key, seq, origin) VALUES(?, ?, ?, ?)" }
        statement.bind(1, namespace).bind(2, key).bind(3, sequence)
        if let stored = origin.stored { statement.bind(4, stored) } else { statement.bind(4, .null) }
        try statement.run()
    }

    /// The entries of `namespace` numbered after `sequence`, in number order, at most `limit`.
    func changes(_ namespace: String, after sequence: Int64,
                 limit: Int) throws(SyncKernelError) -> [(key: [UInt8], sequence: Int64, origin: ChangeOrigin)] {
        let statement = try db.statement("SELECT key, seq, origin FROM sk_change WHERE ns = ? AND seq > ? ORDER BY seq LIMIT ?")
        statement.bind(1, namespace).bind(2, sequence).bind(3, Int64(limit))
        var out: [(key: [UInt8], sequence: Int64, origin: ChangeOrigin)] = []
        while try statement.step() {
            out.append((statement.blob(0), statement.int64(1), ChangeOrigin(stored: statement.isNull(2) ? nil : statement.blob(2))))
        }
        return out
    }

    /// Whether `namespace` holds an entry numbered after `sequence` for a key at or above
    /// `start` and below `end` (nil: unbounded): one range read of the log's primary key.
    func hasChanges(_ namespace: String, after sequence: Int64, from start: [UInt8]?, below end: [UInt8]?) throws(SyncKernelError) -> Bool {
        var conditions = ["ns = ?", "seq > ?"]
        if start != nil { conditions.append("key >= ?") }
        if end != nil { conditions.append("key < ?") }
        let statement = try db.statement("SELECT EXISTS(SELECT 1 FROM sk_change WHERE \(conditions.joined(separator: " AND ")))")
        statement.bind(1, namespace).bind(2, sequence)
        var index: Int32 = 3
        if let start { statement.bind(index, start); index += 1 }
        if let end { statement.bind(index, end) }
        return try statement.first { $0.int64(0) != 0 } ?? false
    }
}
