import Foundation
import SQLiteStore

/// SQL access to the kernel-owned tables: RowVersion, tombstones, namespace row tables,
/// structures and the quarantine.
///
/// Invariant: the only code that touches those tables; callers run it inside a transaction.
struct Bookkeeping {
    let db: SQLiteConnection<SyncKernelError>

    static let schema = """
        CREATE TABLE IF NOT EXISTS sk_version(
            ns TEXT NOT NULL, key BLOB NOT NULL, vector BLOB NOT NULL, row BLOB, writer BLOB, leaf BLOB,
            PRIMARY KEY(ns, key, vector)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS sk_row_format(ns TEXT NOT NULL PRIMARY KEY, format TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS sk_structure(
            ns TEXT NOT NULL PRIMARY KEY, format INTEGER NOT NULL, count INTEGER NOT NULL, changes INTEGER NOT NULL,
            set_hash BLOB NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS sk_symbol(
            ns TEXT NOT NULL, idx INTEGER NOT NULL, symbol BLOB NOT NULL, PRIMARY KEY(ns, idx)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS sk_bucket(
            ns TEXT NOT NULL, idx INTEGER NOT NULL, fingerprint BLOB NOT NULL, PRIMARY KEY(ns, idx)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS sk_wide(
            ns TEXT NOT NULL, idx INTEGER NOT NULL, symbols BLOB NOT NULL, PRIMARY KEY(ns, idx)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS sk_journal(
            ns TEXT NOT NULL, seq INTEGER NOT NULL, entry BLOB NOT NULL, PRIMARY KEY(ns, seq)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS sk_quarantine(
            id INTEGER PRIMARY KEY, ns TEXT NOT NULL, key BLOB NOT NULL, row BLOB NOT NULL, vector BLOB,
            reason TEXT NOT NULL, site TEXT NOT NULL, quarantined_at INTEGER NOT NULL);
        """

    static func rowTable(_ namespace: String) -> String { "ns_\(namespace)" }

    /// The statements every row write runs, each named by key (`SQLiteStatementKey`: the query
    /// and the namespace whose table its text names), so a write builds and hashes no SQL text.
    enum Query: Int {
        case row, record, leaf, putRow, putRowWithVersion, versionEntries, putSymbol, removeSymbol, putBucket, removeBucket
        case putWide, removeWide, putJournal, clearJournal, putChange
    }

    /// The prepared statement of `query` over `namespace` (empty for a text that names no
    /// namespace's table); `sql` gives its text the first time.
    func statement(_ query: Query, _ namespace: String = "", _ sql: () -> String) throws(SyncKernelError) -> SQLiteStatement<SyncKernelError> {
        try db.statement(SQLiteStatementKey(query: query.rawValue, scope: namespace), sql)
    }

    /// Brings the kernel-wide tables of a store of an earlier build up to this one: `sk_version`
    /// gains its `writer` column (NULL, unknown, for the versions it already holds) and its `leaf`
    /// column (a live version's leaf hash; NULL for a delete, and for the live versions an earlier
    /// build kept until `KernelStore` fills them in at open), and the partial index
    /// `sk_version_live` over the kept live versions is created, which makes counting open
    /// conflicts (`openConflictCounts`) and finding conflicted keys read those versions only,
    /// never the tombstones. Idempotent; the caller runs it at open.
    func upgradeKernelTables() throws(SyncKernelError) {
        for column in ["writer", "leaf"] {
            let columns = try db.statement("SELECT COUNT(*) FROM pragma_table_info('sk_version') WHERE name = '\(column)'")
            if try columns.first({ $0.int64(0) }) == 0 {
                try db.execute("ALTER TABLE sk_version ADD COLUMN \(column) BLOB")
            }
        }
        try db.execute("CREATE INDEX IF NOT EXISTS sk_version_live ON sk_version(ns, key) WHERE row IS NOT NULL")
    }

    /// Creates the namespace's row table: each row beside its leaf hash (`leaf`: 32 bytes, an
    /// empty blob for a device-derived row, which has none, or NULL in a table made before the
    /// column existed, until `KernelStore` fills it in), the namespace's item change counter
    /// right after the row's item last moved (`changed`; NULL when unknown: a row written before
    /// the column existed, or rewritten by a migration) and the row's RowVersion (`vector`,
    /// `synced_at`, `content_vector`; all NULL for a row with none: a device-derived row, a row of
    /// a namespace that keeps no vectors, or one not registered yet). Keeping the RowVersion in
    /// the row's own record makes a write touch one B-tree, not two. A table from before gains
    /// the columns. `writer` is the device that wrote the visible content (32 bytes, NULL when
    /// unknown), part of the RowVersion.
    func createRowTable(_ namespace: String) throws(SyncKernelError) {
        let table = Bookkeeping.rowTable(namespace)
        try db.execute("""
            CREATE TABLE IF NOT EXISTS \(table)(key BLOB PRIMARY KEY, row BLOB NOT NULL, leaf BLOB, changed INTEGER,
                vector BLOB, synced_at INTEGER, content_vector BLOB, writer BLOB) WITHOUT ROWID
            """)
        for column in ["leaf BLOB", "changed INTEGER", "vector BLOB", "synced_at INTEGER", "content_vector BLOB", "writer BLOB"] {
            let name = String(column.prefix { $0 != " " })
            let columns = try db.statement("SELECT COUNT(*) FROM pragma_table_info('\(table)') WHERE name = '\(name)'")
            if try columns.first({ $0.int64(0) }) == 0 {
                try db.execute("ALTER TABLE \(table) ADD COLUMN \(column)")
            }
        }
    }

    /// Moves the namespace's RowVersions from the table older stores kept them in
    /// (`sk_row_version`) into the row table, and drops that table once it holds nothing. The
    /// caller runs it inside a transaction, after `createRowTable`.
    func adoptLegacyVersions(_ namespace: String) throws(SyncKernelError) {
        let exists = try db.statement("SELECT EXISTS(SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sk_row_version')")
            .first { $0.int64(0) != 0 } ?? false
        guard exists else { return }
        let table = Bookkeeping.rowTable(namespace)
        try db.statement("""
            UPDATE \(table) SET vector = legacy.vector, synced_at = legacy.synced_at, content_vector = legacy.content_vector
            FROM (SELECT key, vector, synced_at, content_vector FROM sk_row_version WHERE ns = ?) AS legacy
            WHERE \(table).key = legacy.key
            """).bind(1, namespace).run()
        try db.statement("DELETE FROM sk_row_version WHERE ns = ?").bind(1, namespace).run()
        let remaining = try db.statement("SELECT EXISTS(SELECT 1 FROM sk_row_version)").first { $0.int64(0) != 0 } ?? false
        if !remaining { try db.execute("DROP TABLE sk_row_version") }
    }

    // MARK: rows


    func row(_ namespace: String, _ key: [UInt8]) throws(SyncKernelError) -> [UInt8]? {
        let statement = try statement(.row, namespace) { "SELECT row FROM \(Bookkeeping.rowTable(namespace)) WHERE key = ?" }
        statement.bind(1, key)
        return try statement.first { $0.blob(0) }
    }

    func allRows(_ namespace: String) throws(SyncKernelError) -> [[UInt8]] {
        let statement = try db.statement("SELECT row FROM \(Bookkeeping.rowTable(namespace)) ORDER BY key")
        var rows: [[UInt8]] = []
        while try statement.step() { rows.append(statement.blob(0)) }
        return rows
    }

    /// Every stored row of a namespace with its key, in key order.
    func keyedRows(_ namespace: String) throws(SyncKernelError) -> [(key: [UInt8], row: [UInt8])] {
        let statement = try db.statement("SELECT key, row FROM \(Bookkeeping.rowTable(namespace)) ORDER BY key")
        var rows: [(key: [UInt8], row: [UInt8])] = []
        while try statement.step() { rows.append((statement.blob(0), statement.blob(1))) }
        return rows
    }

    /// Stored rows of a namespace with their keys, in key order: those after `cursor` (from the
    /// first when nil), at or above `start` and below `end` when given, at most `limit`.
    func keyedRows(_ namespace: String, after cursor: [UInt8]?, from start: [UInt8]?, below end: [UInt8]?,
                   limit: Int) throws(SyncKernelError) -> [(key: [UInt8], row: [UInt8])] {
        var conditions: [String] = []
        var values: [[UInt8]] = []
        if let cursor { conditions.append("key > ?"); values.append(cursor) }
        if let start { conditions.append("key >= ?"); values.append(start) }
        if let end { conditions.append("key < ?"); values.append(end) }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let statement = try db.statement("SELECT key, row FROM \(Bookkeeping.rowTable(namespace))\(filter) ORDER BY key LIMIT ?")
        for (index, value) in values.enumerated() { statement.bind(Int32(index + 1), value) }
        statement.bind(Int32(values.count + 1), Int64(limit))
        var rows: [(key: [UInt8], row: [UInt8])] = []
        while try statement.step() { rows.append((statement.blob(0), statement.blob(1))) }
        return rows
    }

    /// The number of rows a namespace stores (device-derived ones included).
    func rowCount(_ namespace: String) throws(SyncKernelError) -> Int {
        try db.statement("SELECT COUNT(*) FROM \(Bookkeeping.rowTable(namespace))").first { Int($0.int64(0)) } ?? 0
    }

    /// The keys of synced rows (a leaf that is not empty, or not filled in yet: never a
    /// device-derived row) that start with `prefix`, in key order, at most `limit`: one range
    /// read from `prefix` to the next key that does not start with it.
    func syncedKeys(_ namespace: String, withPrefix prefix: [UInt8], limit: Int) throws(SyncKernelError) -> [[UInt8]] {
        let table = Bookkeeping.rowTable(namespace)
        let end = KeyRange.prefixEnd(prefix)
        let statement = try db.statement(end == nil
            ? "SELECT key FROM \(table) WHERE key >= ? AND (leaf IS NULL OR length(leaf) > 0) ORDER BY key LIMIT ?"
            : "SELECT key FROM \(table) WHERE key >= ? AND key < ? AND (leaf IS NULL OR length(leaf) > 0) ORDER BY key LIMIT ?")
        statement.bind(1, prefix)
        if let end { statement.bind(2, end).bind(3, Int64(limit)) } else { statement.bind(2, Int64(limit)) }
        var keys: [[UInt8]] = []
        while try statement.step() { keys.append(statement.blob(0)) }
        return keys
    }

    /// The nearest row key before (`before`) or after `key` whose row is synced and that
    /// `include` accepts, looking at no more than `maxSteps` rows; nil when there is none or the
    /// steps run out (`exhausted` then says so).
    func neighbor(_ namespace: String, of key: [UInt8], before: Bool, maxSteps: Int,
                  include: ([UInt8]) -> Bool) throws(SyncKernelError) -> (key: [UInt8]?, exhausted: Bool) {
        let statement = try db.statement(before
            ? "SELECT key, leaf FROM \(Bookkeeping.rowTable(namespace)) WHERE key < ? ORDER BY key DESC LIMIT 1"
            : "SELECT key, leaf FROM \(Bookkeeping.rowTable(namespace)) WHERE key > ? ORDER BY key LIMIT 1")
        var from = key
        for _ in 0..<maxSteps {
            statement.bind(1, from)
            guard let (next, leaf) = try statement.first({ ($0.blob(0), $0.isNull(1) ? nil : $0.blob(1)) }) else { return (nil, false) }
            if leaf.map({ !$0.isEmpty }) ?? true, include(next) { return (next, false) }
            from = next
        }
        return (nil, true)
    }

    /// Stores a row with its leaf hash (nil for a device-derived row, stored as an empty blob)
    /// and the change counter after its item moved (nil: unknown). With a `version` the row's
    /// RowVersion is written in the same statement; without one a row already stored keeps its
    /// RowVersion and a new row has none.
    func putRow(_ namespace: String, _ key: [UInt8], _ bytes: [UInt8], leaf: [UInt8]?, changed: UInt64? = nil,
                version: RowVersion? = nil) throws(SyncKernelError) {
        let table = Bookkeeping.rowTable(namespace)
        let statement: SQLiteStatement<SyncKernelError>
        if let version {
            statement = try self.statement(.putRowWithVersion, namespace) { """
                INSERT INTO \(table)(key, row, leaf, changed, vector, synced_at, content_vector, writer) VALUES(?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET row = excluded.row, leaf = excluded.leaf, changed = excluded.changed,
                vector = excluded.vector, synced_at = excluded.synced_at, content_vector = excluded.content_vector,
                writer = excluded.writer
                """ }
            Bookkeeping.bind(version, to: statement, from: 5)
        } else {
            statement = try self.statement(.putRow, namespace) { """
                INSERT INTO \(table)(key, row, leaf, changed) VALUES(?, ?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET row = excluded.row, leaf = excluded.leaf, changed = excluded.changed
                """ }
        }
        statement.bind(1, key).bind(2, bytes).bind(3, leaf ?? [])
        if let changed { statement.bind(4, Int64(bitPattern: changed)) } else { statement.bind(4, .null) }
        try statement.run()
    }

    /// The stored record of row `key` (bytes, leaf, change counter, RowVersion) in one read, nil
    /// when there is no row.
    func record(_ namespace: String, _ key: [UInt8]) throws(SyncKernelError) -> StoredRecord? {
        let statement = try statement(.record, namespace) { """
            SELECT row, leaf, changed, vector, synced_at, content_vector, writer FROM \(Bookkeeping.rowTable(namespace)) WHERE key = ?
            """ }
        statement.bind(1, key)
        return try statement.first { Bookkeeping.record(in: $0, from: 0) }
    }

    /// Calls `body` with every stored record of a namespace and its key, in key order, one at a
    /// time (a scan that holds one row in memory, for `checkIntegrity`). `body` must not use the
    /// store.
    func forEachRecord(_ namespace: String, _ body: ([UInt8], StoredRecord) throws(SyncKernelError) -> Void) throws(SyncKernelError) {
        let statement = try db.statement("""
            SELECT row, leaf, changed, vector, synced_at, content_vector, writer, key FROM \(Bookkeeping.rowTable(namespace)) ORDER BY key
            """)
        while try statement.step() { try body(statement.blob(7), Bookkeeping.record(in: statement, from: 0)) }
    }

    /// The record in columns `first` (row), `first + 1` (leaf), `first + 2` (changed) and the
    /// RowVersion's four columns after them, of the current result row.
    static func record(in stored: SQLiteStatement<SyncKernelError>, from first: Int32) -> StoredRecord {
        let leaf = stored.isNull(first + 1) ? nil : stored.blob(first + 1)
        return StoredRecord(row: stored.blob(first), leaf: leaf.flatMap { $0.isEmpty ? nil : $0 },
                            changed: stored.isNull(first + 2) ? nil : UInt64(bitPattern: stored.int64(first + 2)),
                            vector: stored.isNull(first + 3) ? nil : stored.blob(first + 3),
                            syncedAt: stored.int64(first + 4), contentVector: stored.blob(first + 5),
                            writer: writer(in: stored, at: first + 6))
    }

    /// The writer stored in column `index`: nil for NULL and for anything but 32 bytes (a writer
    /// decides nothing, so a damaged one reads as unknown rather than failing the row).
    static func writer(in stored: SQLiteStatement<SyncKernelError>, at index: Int32) -> DeviceID? {
        stored.isNull(index) ? nil : try? DeviceID(publicKey: stored.blob(index))
    }

    /// The stored leaves of a namespace (device-derived rows have none), in key order, read
    /// without decoding a row.
    func leaves(_ namespace: String) throws(SyncKernelError) -> [Leaf] {
        let statement = try db.statement("SELECT key, leaf FROM \(Bookkeeping.rowTable(namespace)) WHERE length(leaf) > 0 ORDER BY key")
        return try Bookkeeping.leafList(statement, namespace)
    }

    /// Hands every stored leaf of a namespace to `body`, in key order, one at a time (the rows
    /// are stepped through, never gathered), checked as `leaves(_:)` checks them.
    ///
    /// Invariant: `body` sees exactly the leaves `leaves(_:)` returns, in the same order, and
    /// must not read the leaves of any namespace itself (that would reset this statement).
    func forEachLeaf(_ namespace: String, _ body: (Leaf) throws(SyncKernelError) -> Void) throws(SyncKernelError) {
        let statement = try db.statement("SELECT key, leaf FROM \(Bookkeeping.rowTable(namespace)) WHERE length(leaf) > 0 ORDER BY key")
        var previous: [UInt8]?
        while try statement.step() {
            let leaf = Leaf(key: statement.blob(0), hash: statement.blob(1))
            guard leaf.hash.count == SHA256.byteCount, previous.map({ [UInt8].keyPrecedes($0, leaf.key) }) ?? true else {
                throw SyncKernelError(.corruptBookkeeping, "a stored leaf out of shape or order in \(namespace)")
            }
            previous = leaf.key
            try body(leaf)
        }
    }

    /// The (key, leaf) rows `statement` returns, checked as the spec's Merkle roots and the
    /// structure need them: leaf hashes of 32 bytes and keys strictly ascending. A damaged store
    /// that breaks either (a hand-edited leaf, a key stored as another SQLite type) is
    /// `corruptBookkeeping`, never a trap further on (`SortedLeaves(sorted:)` and `StateDigest`
    /// check both with preconditions).
    private static func leafList(_ statement: SQLiteStatement<SyncKernelError>, _ namespace: String) throws(SyncKernelError) -> [Leaf] {
        var leaves: [Leaf] = []
        while try statement.step() {
            let leaf = Leaf(key: statement.blob(0), hash: statement.blob(1))
            guard leaf.hash.count == SHA256.byteCount,
                  leaves.last.map({ [UInt8].keyPrecedes($0.key, leaf.key) }) ?? true else {
                throw SyncKernelError(.corruptBookkeeping, "a stored leaf out of shape or order in \(namespace)")
            }
            leaves.append(leaf)
        }
        return leaves
    }

    /// The stored leaf hash of a row: nil when there is no row or the row is device-derived (an
    /// empty blob) or its leaf is not stored yet.
    func leaf(_ namespace: String, _ key: [UInt8]) throws(SyncKernelError) -> [UInt8]? {
        let statement = try statement(.leaf, namespace) { "SELECT leaf FROM \(Bookkeeping.rowTable(namespace)) WHERE key = ?" }
        statement.bind(1, key)
        let stored: [UInt8]?? = try statement.first { $0.isNull(0) ? nil : $0.blob(0) }
        guard let leaf = stored.flatMap({ $0 }), !leaf.isEmpty else { return nil }
        return leaf
    }

    /// The stored leaves of the rows in `range`, in key order (the rows of one trie node).
    func leaves(_ namespace: String, in range: KeyRange) throws(SyncKernelError) -> [Leaf] {
        let table = Bookkeeping.rowTable(namespace)
        let statement: SQLiteStatement<SyncKernelError>
        if let hi = range.hi {
            statement = try db.statement("SELECT key, leaf FROM \(table) WHERE key >= ? AND key < ? AND length(leaf) > 0 ORDER BY key")
            statement.bind(1, range.lo).bind(2, hi)
        } else {
            statement = try db.statement("SELECT key, leaf FROM \(table) WHERE key >= ? AND length(leaf) > 0 ORDER BY key")
            statement.bind(1, range.lo)
        }
        return try Bookkeeping.leafList(statement, namespace)
    }

    /// The rows whose leaf is not yet stored (a table from before the leaf column), with keys.
    func rowsWithoutLeaf(_ namespace: String) throws(SyncKernelError) -> [(key: [UInt8], row: [UInt8])] {
        let statement = try db.statement("SELECT key, row FROM \(Bookkeeping.rowTable(namespace)) WHERE leaf IS NULL ORDER BY key")
        var rows: [(key: [UInt8], row: [UInt8])] = []
        while try statement.step() { rows.append((statement.blob(0), statement.blob(1))) }
        return rows
    }

    /// Whether the namespace holds no row at all.
    func isEmpty(_ namespace: String) throws(SyncKernelError) -> Bool {
        try db.statement("SELECT EXISTS(SELECT 1 FROM \(Bookkeeping.rowTable(namespace)))").first { $0.int64(0) == 0 } ?? true
    }

    func removeRow(_ namespace: String, _ key: [UInt8]) throws(SyncKernelError) {
        try db.statement("DELETE FROM \(Bookkeeping.rowTable(namespace)) WHERE key = ?").bind(1, key).run()
    }

    // MARK: Namespace structure

    /// The persisted structure header of a namespace, if any.
    func structure(_ namespace: String) throws(SyncKernelError) -> (format: Int64, count: Int64, changes: UInt64, setHash: [UInt8])? {
        let statement = try db.statement("SELECT format, count, changes, set_hash FROM sk_structure WHERE ns = ?")
        statement.bind(1, namespace)
        return try statement.first { ($0.int64(0), $0.int64(1), UInt64(bitPattern: $0.int64(2)), $0.blob(3)) }
    }

    func putStructure(_ namespace: String, format: Int64, count: Int64, changes: UInt64, setHash: [UInt8]) throws(SyncKernelError) {
        try db.statement("INSERT OR REPLACE INTO sk_structure(ns, format, count, changes, set_hash) VALUES(?, ?, ?, ?, ?)")
            .bind(1, namespace).bind(2, format).bind(3, count).bind(4, Int64(bitPattern: changes)).bind(5, setHash).run()
    }

    /// Drops a namespace's persisted structure (before a rebuild).
    func clearStructure(_ namespace: String) throws(SyncKernelError) {
        for table in ["sk_structure", "sk_symbol", "sk_bucket", "sk_wide", "sk_journal"] {
            try db.statement("DELETE FROM \(table) WHERE ns = ?").bind(1, namespace).run()
        }
    }

    /// The stored (non-zero) sketch symbols of a namespace, by index.
    func symbols(_ namespace: String) throws(SyncKernelError) -> [(index: Int, bytes: [UInt8])] {
        try indexedBlobs(namespace, table: "sk_symbol", column: "symbol")
    }

    /// Stores a symbol, or removes it when nil (a zero symbol is not stored).
    func putSymbol(_ namespace: String, index: Int, _ bytes: [UInt8]?) throws(SyncKernelError) {
        try putIndexedBlob(namespace, index: index, bytes, table: "sk_symbol", column: "symbol", queries: (.putSymbol, .removeSymbol))
    }

    /// The stored (non-empty) bucket fingerprints of a namespace, by index.
    func buckets(_ namespace: String) throws(SyncKernelError) -> [(index: Int, bytes: [UInt8])] {
        try indexedBlobs(namespace, table: "sk_bucket", column: "fingerprint")
    }

    /// Stores a bucket fingerprint, or removes it when nil (an empty bucket is not stored).
    func putBucket(_ namespace: String, index: Int, _ bytes: [UInt8]?) throws(SyncKernelError) {
        try putIndexedBlob(namespace, index: index, bytes, table: "sk_bucket", column: "fingerprint", queries: (.putBucket, .removeBucket))
    }

    /// The stored (non-zero) wide sketch blocks of a namespace, by block index.
    func wideBlocks(_ namespace: String) throws(SyncKernelError) -> [(index: Int, bytes: [UInt8])] {
        try indexedBlobs(namespace, table: "sk_wide", column: "symbols")
    }

    /// Stores a wide sketch block, or removes it when nil (an all-zero block is not stored).
    func putWideBlock(_ namespace: String, index: Int, _ bytes: [UInt8]?) throws(SyncKernelError) {
        try putIndexedBlob(namespace, index: index, bytes, table: "sk_wide", column: "symbols", queries: (.putWide, .removeWide))
    }

    /// The wide sketch journal of a namespace, in sequence order.
    func wideJournal(_ namespace: String) throws(SyncKernelError) -> [(sequence: Int, bytes: [UInt8])] {
        let statement = try db.statement("SELECT seq, entry FROM sk_journal WHERE ns = ? ORDER BY seq")
        statement.bind(1, namespace)
        var out: [(sequence: Int, bytes: [UInt8])] = []
        while try statement.step() { out.append((Int(statement.int64(0)), statement.blob(1))) }
        return out
    }

    /// Appends one wide sketch journal entry.
    func putWideJournalEntry(_ namespace: String, sequence: Int, _ bytes: [UInt8]) throws(SyncKernelError) {
        try statement(.putJournal) { "INSERT OR REPLACE INTO sk_journal(ns, seq, entry) VALUES(?, ?, ?)" }
            .bind(1, namespace).bind(2, Int64(sequence)).bind(3, bytes).run()
    }

    /// Empties a namespace's wide sketch journal (its blocks were just written).
    func clearWideJournal(_ namespace: String) throws(SyncKernelError) {
        try statement(.clearJournal) { "DELETE FROM sk_journal WHERE ns = ?" }.bind(1, namespace).run()
    }

    /// Every (index, blob) of one namespace in a structure table.
    private func indexedBlobs(_ namespace: String, table: String, column: String) throws(SyncKernelError) -> [(index: Int, bytes: [UInt8])] {
        let statement = try db.statement("SELECT idx, \(column) FROM \(table) WHERE ns = ?")
        statement.bind(1, namespace)
        var out: [(index: Int, bytes: [UInt8])] = []
        while try statement.step() { out.append((Int(statement.int64(0)), statement.blob(1))) }
        return out
    }

    /// Stores one indexed blob of a structure table, or deletes it when nil.
    /// `queries` names the two statements (store, remove) of `table`.
    private func putIndexedBlob(_ namespace: String, index: Int, _ bytes: [UInt8]?, table: String, column: String,
                                queries: (put: Query, remove: Query)) throws(SyncKernelError) {
        if let bytes {
            try statement(queries.put) { "INSERT OR REPLACE INTO \(table)(ns, idx, \(column)) VALUES(?, ?, ?)" }
                .bind(1, namespace).bind(2, Int64(index)).bind(3, bytes).run()
        } else {
            try statement(queries.remove) { "DELETE FROM \(table) WHERE ns = ? AND idx = ?" }.bind(1, namespace).bind(2, Int64(index)).run()
        }
    }

    /// Bytes the structure tables hold for a namespace (payload bytes, not SQLite's page overhead).
    func structureBytes(_ namespace: String) throws(SyncKernelError) -> Int {
        var total = 0
        for query in ["SELECT COALESCE(SUM(length(set_hash)) + 24, 0) FROM sk_structure WHERE ns = ?",
                      "SELECT COALESCE(SUM(length(symbol) + 8), 0) FROM sk_symbol WHERE ns = ?",
                      "SELECT COALESCE(SUM(length(fingerprint) + 8), 0) FROM sk_bucket WHERE ns = ?",
                      "SELECT COALESCE(SUM(length(symbols) + 8), 0) FROM sk_wide WHERE ns = ?",
                      "SELECT COALESCE(SUM(length(entry) + 8), 0) FROM sk_journal WHERE ns = ?"] {
            total += try db.statement(query).bind(1, namespace).first { Int($0.int64(0)) } ?? 0
        }
        return total
    }

    // MARK: Row format

    /// The row format id recorded for a namespace's stored rows, if any.
    func rowFormat(_ namespace: String) throws(SyncKernelError) -> String? {
        let statement = try db.statement("SELECT format FROM sk_row_format WHERE ns = ?")
        statement.bind(1, namespace)
        return try statement.first { $0.text(0) }
    }

    func setRowFormat(_ namespace: String, _ format: String) throws(SyncKernelError) {
        try db.statement("INSERT OR REPLACE INTO sk_row_format(ns, format) VALUES(?, ?)").bind(1, namespace).bind(2, format).run()
    }

    /// Every live version other than the visible row, with its key and encoded vector.
    func liveVersionRows(_ namespace: String) throws(SyncKernelError) -> [(key: [UInt8], vector: [UInt8], row: [UInt8])] {
        let statement = try db.statement("SELECT key, vector, row FROM sk_version WHERE ns = ? AND row IS NOT NULL ORDER BY key, vector")
        statement.bind(1, namespace)
        var out: [(key: [UInt8], vector: [UInt8], row: [UInt8])] = []
        while try statement.step() { out.append((statement.blob(0), statement.blob(1), statement.blob(2))) }
        return out
    }

    func replaceVersionRow(_ namespace: String, key: [UInt8], vector: [UInt8], row: [UInt8], leaf: [UInt8]) throws(SyncKernelError) {
        try db.statement("UPDATE sk_version SET row = ?, leaf = ? WHERE ns = ? AND key = ? AND vector = ?")
            .bind(1, row).bind(2, leaf).bind(3, namespace).bind(4, key).bind(5, vector).run()
    }

    // MARK: RowVersion

    /// The RowVersion stored with row `key`, nil when there is no row or the row has none.
    func version(_ namespace: String, _ key: [UInt8]) throws(SyncKernelError) -> RowVersion? {
        try record(namespace, key)?.version()
    }

    /// A RowVersion from its stored columns: the vector, the stamp, the content vector (an
    /// empty blob when it equals the vector) and the writer.
    static func version(vector: [UInt8], syncedAt: Int64, contentVector: [UInt8], writer: DeviceID?) throws(SyncKernelError) -> RowVersion {
        let decoded = try Bookkeeping.decodeVector(vector)
        return RowVersion(vector: decoded, syncedAt: syncedAt,
                          contentVector: contentVector.isEmpty ? decoded : try Bookkeeping.decodeVector(contentVector), writer: writer)
    }

    /// Stores the RowVersion of the stored row `key`; a content vector equal to the vector (the
    /// usual case) is stored as an empty blob, which no encoded vector is (an empty vector
    /// encodes as one byte). A version belongs to a stored row: with no row there is nothing to
    /// version, and the call throws `corruptBookkeeping` (a kernel bug, never peer input).
    func putVersion(_ namespace: String, _ key: [UInt8], _ version: RowVersion) throws(SyncKernelError) {
        let statement = try db.statement("""
            UPDATE \(Bookkeeping.rowTable(namespace)) SET vector = ?, synced_at = ?, content_vector = ?, writer = ? WHERE key = ?
            """)
        Bookkeeping.bind(version, to: statement, from: 1)
        try statement.bind(5, key).run()
        guard db.changedRows == 1 else {
            throw SyncKernelError(.corruptBookkeeping, "\(namespace): a RowVersion for a row that is not stored")
        }
    }

    /// Clears the RowVersion of row `key` (nothing happens when the row is not stored).
    func removeVersion(_ namespace: String, _ key: [UInt8]) throws(SyncKernelError) {
        try db.statement("""
            UPDATE \(Bookkeeping.rowTable(namespace)) SET vector = NULL, synced_at = NULL, content_vector = NULL, writer = NULL
            WHERE key = ?
            """).bind(1, key).run()
    }

    /// Binds a RowVersion's four columns at `first` to `first + 3`.
    private static func bind(_ version: RowVersion, to statement: SQLiteStatement<SyncKernelError>, from first: Int32) {
        statement.bind(first, version.vector.encoded()).bind(first + 1, version.syncedAt)
            .bind(first + 2, version.contentVector == version.vector ? [] : version.contentVector.encoded())
        if let writer = version.writer { statement.bind(first + 3, writer.publicKey) } else { statement.bind(first + 3, .null) }
    }

    /// Whether any row of the namespace has RowVersion bookkeeping (stops at the first one).
    func hasVersions(_ namespace: String) throws(SyncKernelError) -> Bool {
        try db.statement("SELECT EXISTS(SELECT 1 FROM \(Bookkeeping.rowTable(namespace)) WHERE vector IS NOT NULL)")
            .first { $0.int64(0) != 0 } ?? false
    }


    // MARK: other versions (concurrent siblings and deletes)

    /// The versions of a key other than the visible row: concurrent live siblings and deletes.
    func versions(_ namespace: String, _ key: [UInt8]) throws(SyncKernelError) -> [StoredVersion] {
        try Bookkeeping.versions(of: try versionEntries(namespace, key))
    }

    /// `entries` (as `versionEntries` read them) with their vectors decoded, as `versions` returns them.
    static func versions(of entries: [VersionEntry]) throws(SyncKernelError) -> [StoredVersion] {
        var out: [StoredVersion] = []
        for entry in entries {
            out.append(StoredVersion(vector: try Bookkeeping.decodeVector(entry.vector), row: entry.row, writer: entry.writer))
        }
        return out
    }

    /// The kept versions of `key` (concurrent live versions and deletes) that pass
    /// `StoredRowCheck.kept`; damaged ones go to `damaged` for the caller to quarantine.
    func keptVersions(_ key: [UInt8], driver: NamespaceDriver, damaged: inout [DamagedRow]) throws(SyncKernelError) -> [StoredVersion] {
        let (usable, found) = StoredRowCheck.kept(key, entries: try versionEntries(driver.name, key), driver: driver)
        damaged += found
        return usable
    }

    /// The versions of a key other than the visible row as stored: each vector undecoded, so an
    /// entry that no longer decodes can be told apart and quarantined.
    func versionEntries(_ namespace: String, _ key: [UInt8]) throws(SyncKernelError) -> [VersionEntry] {
        let statement = try statement(.versionEntries) { "SELECT vector, row, writer, leaf FROM sk_version WHERE ns = ? AND key = ? ORDER BY vector" }
        statement.bind(1, namespace).bind(2, key)
        var out: [VersionEntry] = []
        while try statement.step() {
            out.append(VersionEntry(vector: statement.blob(0), row: statement.isNull(1) ? nil : statement.blob(1),
                                    writer: Bookkeeping.writer(in: statement, at: 2),
                                    leaf: statement.isNull(3) ? nil : statement.blob(3)))
        }
        return out
    }

    /// The kept live versions of a namespace that an earlier build stored without their leaf,
    /// in key order (filled in once, at open).
    func liveVersionsWithoutLeaf(_ namespace: String) throws(SyncKernelError) -> [(key: [UInt8], vector: [UInt8], row: [UInt8])] {
        let statement = try db.statement("""
            SELECT key, vector, row FROM sk_version WHERE ns = ? AND row IS NOT NULL AND leaf IS NULL ORDER BY key, vector
            """)
        statement.bind(1, namespace)
        var out: [(key: [UInt8], vector: [UInt8], row: [UInt8])] = []
        while try statement.step() { out.append((statement.blob(0), statement.blob(1), statement.blob(2))) }
        return out
    }

    /// Stores the leaf of one kept live version (its row unchanged).
    func setVersionLeaf(_ namespace: String, key: [UInt8], vector: [UInt8], leaf: [UInt8]) throws(SyncKernelError) {
        try db.statement("UPDATE sk_version SET leaf = ? WHERE ns = ? AND key = ? AND vector = ?")
            .bind(1, leaf).bind(2, namespace).bind(3, key).bind(4, vector).run()
    }

    /// Records the namespace's change counter after the item of row `key` moved without the row
    /// being rewritten (its kept versions changed).
    func setChanged(_ namespace: String, _ key: [UInt8], _ changed: UInt64) throws(SyncKernelError) {
        try db.statement("UPDATE \(Bookkeeping.rowTable(namespace)) SET changed = ? WHERE key = ?")
            .bind(1, Int64(bitPattern: changed)).bind(2, key).run()
    }

    /// Every key of a namespace (in `range`, when given) with at least one kept live version
    /// beside its visible row (an open conflict), in key order; reads the partial index
    /// `sk_version_live` only.
    func conflictedKeys(_ namespace: String, in range: KeyRange? = nil) throws(SyncKernelError) -> [[UInt8]] {
        let statement: SQLiteStatement<SyncKernelError>
        switch (range?.lo, range?.hi) {
        case (let lo?, let hi?):
            statement = try db.statement("""
                SELECT DISTINCT key FROM sk_version WHERE ns = ? AND row IS NOT NULL AND key >= ? AND key < ? ORDER BY key
                """)
            statement.bind(1, namespace).bind(2, lo).bind(3, hi)
        case (let lo?, nil):
            statement = try db.statement("SELECT DISTINCT key FROM sk_version WHERE ns = ? AND row IS NOT NULL AND key >= ? ORDER BY key")
            statement.bind(1, namespace).bind(2, lo)
        default:
            statement = try db.statement("SELECT DISTINCT key FROM sk_version WHERE ns = ? AND row IS NOT NULL ORDER BY key")
            statement.bind(1, namespace)
        }
        var keys: [[UInt8]] = []
        while try statement.step() { keys.append(statement.blob(0)) }
        return keys
    }

    /// Whether `key` is in conflict: it keeps a live version whose stored leaf is not its visible
    /// row's (a kept live version stored without a leaf, by an earlier build, counts as another
    /// leaf). Live versions of the visible leaf (concurrent writes of one content) are no conflict.
    func isInConflict(_ namespace: String, _ key: [UInt8]) throws(SyncKernelError) -> Bool {
        try isInConflict(namespace, key, entries: try versionEntries(namespace, key))
    }

    /// `isInConflict(_:_:)` over `entries`, the key's kept versions as `versionEntries` read them
    /// in this transaction (a caller that read them already spares the second read).
    func isInConflict(_ namespace: String, _ key: [UInt8], entries: [VersionEntry]) throws(SyncKernelError) -> Bool {
        let kept = entries.filter { $0.row != nil }
        guard !kept.isEmpty else { return false }
        let visible = try leaf(namespace, key)
        return kept.contains { $0.leaf == nil || $0.leaf != visible }
    }

    /// The keys of `namespace` in conflict (`isInConflict`), in key order: the keys with a kept
    /// live version (`conflictedKeys`, the partial index) whose versions hold another leaf.
    func openConflicts(_ namespace: String) throws(SyncKernelError) -> [[UInt8]] {
        var keys: [[UInt8]] = []
        for key in try conflictedKeys(namespace) where try isInConflict(namespace, key) { keys.append(key) }
        return keys
    }

    /// The number of keys in conflict (`isInConflict`), per namespace that has any: the keys with
    /// a kept live version, found through the partial index `sk_version_live`, each checked
    /// against its visible row's leaf, so the work is proportional to the kept live versions, never
    /// to the rows or the tombstones. A file whose `sk_version` lacks the `writer` and `leaf`
    /// columns (an earlier build, read without migrating) counts every key with a kept live
    /// version.
    func openConflictCounts() throws(SyncKernelError) -> [String: Int] {
        let columns = try db.statement("SELECT COUNT(*) FROM pragma_table_info('sk_version') WHERE name IN ('writer', 'leaf')")
        guard try columns.first({ $0.int64(0) }) == 2 else {
            let statement = try db.statement("""
                SELECT ns, COUNT(DISTINCT key) FROM sk_version WHERE row IS NOT NULL GROUP BY ns
                """)
            var counts: [String: Int] = [:]
            while try statement.step() { counts[statement.text(0)] = Int(statement.int64(1)) }
            return counts
        }
        let statement = try db.statement("SELECT DISTINCT ns, key FROM sk_version WHERE row IS NOT NULL ORDER BY ns, key")
        var candidates: [(namespace: String, key: [UInt8])] = []
        while try statement.step() { candidates.append((statement.text(0), statement.blob(1))) }
        var counts: [String: Int] = [:]
        for candidate in candidates where try isInConflict(candidate.namespace, candidate.key) {
            counts[candidate.namespace, default: 0] += 1
        }
        return counts
    }

    /// Calls `body` with every kept version of a namespace as stored (its key and entry), one at
    /// a time, in key and vector order. `body` must not use the store.
    func forEachVersionEntry(_ namespace: String, _ body: ([UInt8], VersionEntry) -> Void) throws(SyncKernelError) {
        let statement = try db.statement("SELECT key, vector, row, writer, leaf FROM sk_version WHERE ns = ? ORDER BY key, vector")
        statement.bind(1, namespace)
        while try statement.step() {
            body(statement.blob(0), VersionEntry(vector: statement.blob(1), row: statement.isNull(2) ? nil : statement.blob(2),
                                                 writer: Bookkeeping.writer(in: statement, at: 3),
                                                 leaf: statement.isNull(4) ? nil : statement.blob(4)))
        }
    }

    /// Replaces the versions of a key other than the visible row; `leaf` gives each live
    /// version's leaf hash (by its row bytes). Only `RowWriter` calls it, which moves the key's
    /// item to match.
    func replaceVersions(_ namespace: String, _ key: [UInt8], with versions: [StoredVersion],
                         leaf: ([UInt8]) throws(SyncKernelError) -> [UInt8]) throws(SyncKernelError) {
        try db.statement("DELETE FROM sk_version WHERE ns = ? AND key = ?").bind(1, namespace).bind(2, key).run()
        for version in versions {
            let statement = try db.statement("INSERT OR REPLACE INTO sk_version(ns, key, vector, row, writer, leaf) VALUES(?, ?, ?, ?, ?, ?)")
            statement.bind(1, namespace).bind(2, key).bind(3, version.vector.encoded())
            if let row = version.row {
                statement.bind(4, row).bind(6, try leaf(row))
            } else {
                statement.bind(4, .null).bind(6, .null)
            }
            if let writer = version.writer { statement.bind(5, writer.publicKey) } else { statement.bind(5, .null) }
            try statement.run()
        }
    }

    /// Every delete version of a namespace, in key order.
    func tombstones(_ namespace: String) throws(SyncKernelError) -> [Tombstone] {
        let statement = try db.statement("SELECT key, vector FROM sk_version WHERE ns = ? AND row IS NULL ORDER BY key, vector")
        statement.bind(1, namespace)
        var out: [Tombstone] = []
        while try statement.step() {
            out.append(Tombstone(key: statement.blob(0), vector: try Bookkeeping.decodeVector(statement.blob(1))))
        }
        return out
    }

    /// Decodes a stored vector: any positive counter (`bound: .max`), so a counter an older build
    /// stored above the bound reads and only its bump fails; throws `corruptBookkeeping` when it
    /// does not decode.
    static func decodeVector(_ bytes: [UInt8]) throws(SyncKernelError) -> VersionVector {
        do {
            var cursor = try CBORReader.cursor(over: bytes)
            var budget = DecodeBudget(inputBytes: bytes.count)
            return try VersionVector(reading: &cursor, budget: &budget, bound: .max)
        } catch {
            throw SyncKernelError(.corruptBookkeeping, "unreadable version vector")
        }
    }

    // MARK: quarantine

    /// Sets a damaged row aside, inside the caller's transaction: its entry (the visible row's
    /// record, with its RowVersion, or one kept version) is deleted and the row written to
    /// `sk_quarantine` with why and where. Returns nil, writing nothing, when the entry is no
    /// longer stored (already quarantined). Moving the namespace's structure is the caller's
    /// part (`RowWriter.quarantine`), or the structure is rebuilt after (at open).
    func quarantine(_ damage: DamagedRow, site: QuarantineSite) throws(SyncKernelError) -> QuarantinedRow? {
        if let vector = damage.vector {
            try db.statement("DELETE FROM sk_version WHERE ns = ? AND key = ? AND vector = ?")
                .bind(1, damage.namespace).bind(2, damage.key).bind(3, vector).run()
        } else {
            try removeRow(damage.namespace, damage.key)
        }
        guard db.changedRows > 0 else { return nil }
        let now = Int64(Date().timeIntervalSince1970)
        let statement = try db.statement("""
            INSERT INTO sk_quarantine(ns, key, row, vector, reason, site, quarantined_at) VALUES(?, ?, ?, ?, ?, ?, ?)
            """)
        statement.bind(1, damage.namespace).bind(2, damage.key).bind(3, damage.row)
        if let vector = damage.vector { statement.bind(4, vector) } else { statement.bind(4, .null) }
        try statement.bind(5, damage.reason.rawValue).bind(6, site.rawValue).bind(7, now).run()
        return QuarantinedRow(id: db.lastInsertedRowID, damage: damage, site: site, quarantinedAt: now)
    }

    /// Every quarantined row, in the order they were quarantined.
    func quarantined() throws(SyncKernelError) -> [QuarantinedRow] {
        let statement = try db.statement("""
            SELECT id, ns, key, row, vector, reason, site, quarantined_at FROM sk_quarantine ORDER BY id
            """)
        var out: [QuarantinedRow] = []
        while try statement.step() {
            let damage = DamagedRow(namespace: statement.text(1), key: statement.blob(2), row: statement.blob(3),
                                    vector: statement.isNull(4) ? nil : statement.blob(4),
                                    reason: QuarantineReason(rawValue: statement.text(5)))
            out.append(QuarantinedRow(id: statement.int64(0), damage: damage, site: QuarantineSite(rawValue: statement.text(6)),
                                      quarantinedAt: statement.int64(7)))
        }
        return out
    }
}
