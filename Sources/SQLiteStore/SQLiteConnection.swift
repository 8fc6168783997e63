import CSQLite

/// One SQLite connection, used by exactly one owner, that reports every failure as the owner's
/// error type `Failure`.
///
/// Invariants: a file database is in WAL mode with `synchronous=FULL` (opening refuses a file
/// that will not take WAL), so a committed transaction survives a crash or power loss and an
/// interrupted one leaves no trace; foreign keys are enforced. Every statement is prepared once
/// per SQL text, cached, and reset with its bindings cleared before each reuse. After `close`
/// every call throws `closed`. A connection opened with `init(readingOnly:)` is the exception to
/// the durable settings: it sets nothing and can only read. Not `Sendable`: it never crosses an
/// isolation boundary.
package final class SQLiteConnection<Failure: SQLiteErrorMapping> {
    private var handle: OpaquePointer?
    private var statementCache: [String: SQLiteStatement<Failure>] = [:]
    /// The statements handed out by key (`statement(_:_:)`): each is also in `statementCache`
    /// under its SQL text, the same object, so it is finalized once and reset alike.
    private var keyedStatements: [SQLiteStatementKey: SQLiteStatement<Failure>] = [:]

    /// Opens the database at `path`, creating it when `create` is true and it does not exist
    /// (with `create` false a missing file fails with `openFailed`); `":memory:"` opens a private one.
    ///
    /// `busyTimeoutMilliseconds` is how long a statement waits for another connection's lock
    /// before failing with `SQLITE_BUSY`; 0 fails at once.
    package init(path: String, busyTimeoutMilliseconds: Int32 = 0, create: Bool = true) throws(Failure) {
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &connection, flags, nil)
        guard status == SQLITE_OK, let connection else {
            sqlite3_close_v2(connection)
            throw Failure(sqlite: SQLiteError(.openFailed, status: status))
        }
        handle = connection
        sqlite3_busy_timeout(connection, busyTimeoutMilliseconds)
        let mode = try statement("PRAGMA journal_mode=WAL").first { $0.text(0) }
        guard mode?.lowercased() == (path == ":memory:" ? "memory" : "wal") else {
            throw Failure(sqlite: SQLiteError(.walUnavailable))
        }
        try execute("PRAGMA synchronous=FULL")
        try execute("PRAGMA foreign_keys=ON")
        try execute("PRAGMA cache_size=-\(SQLiteConnection.pageCacheKibibytes)")
    }

    /// Opens the database at `path` to read only, changing nothing in the file: no journal mode,
    /// no pragma that writes. Without a `-wal` file beside it the file is opened immutable (SQLite
    /// then creates no `-wal` or `-shm` file either); with one, even an empty one, read-only, so
    /// the committed transactions the WAL still holds are seen and a writer that holds the
    /// database open (its `-wal` exists, empty right after a truncating checkpoint) can keep
    /// writing while this connection reads consistent snapshots. A statement waits up to
    /// `busyTimeoutMilliseconds` for a lock that writer holds briefly (a checkpoint, a recovery).
    package init(readingOnly path: String, busyTimeoutMilliseconds: Int32 = 2_000) throws(Failure) {
        var connection: OpaquePointer?
        let hasWAL = SQLiteFile.size(of: path + "-wal") != nil
        let uri = "file:" + SQLiteConnection.uriEscaped(path) + (hasWAL ? "?mode=ro" : "?immutable=1")
        let status = sqlite3_open_v2(uri, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let connection else {
            sqlite3_close_v2(connection)
            throw Failure(sqlite: SQLiteError(.openFailed, status: status))
        }
        handle = connection
        sqlite3_busy_timeout(connection, busyTimeoutMilliseconds)
    }

    /// `path` as the path of a `file:` URI: every byte outside the unreserved set and `/`
    /// percent-encoded, so `?`, `#` and `%` in a file name stay part of the name.
    private static func uriEscaped(_ path: String) -> String {
        var escaped = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                escaped.append(Character(UnicodeScalar(byte)))
            default:
                escaped += (byte < 16 ? "%0" : "%") + String(byte, radix: 16, uppercase: true)
            }
        }
        return escaped
    }

    /// Creates a new database at `path` whole or not at all: it is built beside `path` (under
    /// the name `path + "-creating"`, any leftover of an interrupted creation removed first),
    /// `setUp` runs on it in one transaction, it is closed, then linked to `path` (which must
    /// still not exist) and the directory synced. A crash at any point leaves either no file at
    /// `path` or the whole set-up database, never an empty or half-made one.
    package static func create(at path: String,
                               setUp: (SQLiteConnection) throws(Failure) -> Void) throws(Failure) {
        let staging = path + "-creating"
        SQLiteFile.remove([staging, staging + "-wal", staging + "-shm", staging + "-journal"])
        do throws(Failure) {
            let connection = try SQLiteConnection(path: staging)
            defer { connection.close() }
            try connection.transaction { () throws(Failure) in try setUp(connection) }
        } catch {
            SQLiteFile.remove([staging, staging + "-wal", staging + "-shm"])
            throw error
        }
        let linked = SQLiteFile.link(staging, to: path)
        SQLiteFile.remove([staging, staging + "-wal", staging + "-shm"])
        guard linked else { throw Failure(sqlite: SQLiteError(.createFailed)) }
        SQLiteFile.syncDirectory(of: path)
    }

    /// The database's application id (`PRAGMA application_id`, 0 when never set).
    package func applicationID() throws(Failure) -> Int32 {
        Int32(truncatingIfNeeded: try statement("PRAGMA application_id").first { $0.int64(0) } ?? 0)
    }

    /// Sets the application id in the database header (inside the caller's transaction, if any).
    package func setApplicationID(_ id: Int32) throws(Failure) {
        try execute("PRAGMA application_id = \(id)")
    }

    /// The names of the database's tables, in name order (SQLite's own `sqlite_` tables left out).
    package func tableNames() throws(Failure) -> [String] {
        let statement = try statement("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
        var names: [String] = []
        while try statement.step() { names.append(statement.text(0)) }
        return names
    }

    /// SQLite's own check of the whole file (`PRAGMA integrity_check`): the problems it lists,
    /// empty when it answers `ok`. Its lines name pages, tables and indexes, never row values.
    package func integrityProblems() throws(Failure) -> [String] {
        let statement = try statement("PRAGMA integrity_check")
        var lines: [String] = []
        while try statement.step() { lines.append(statement.text(0)) }
        return lines == ["ok"] ? [] : lines
    }

    /// The page cache each connection may fill, in KiB: large enough that writes at random keys
    /// into tables of a million rows find their B-tree pages cached, small next to the data.
    package static var pageCacheKibibytes: Int { 64 * 1024 }

    /// The page cache a bulk write may fill while it runs, in KiB (`setPageCache`): writes at
    /// random keys into a table larger than the cache evict a dirty page to the WAL and read one
    /// back for almost every row; four times the cache halves that for a million rows.
    package static var bulkPageCacheKibibytes: Int { 256 * 1024 }

    /// Sets the page cache this connection may fill to `kibibytes` KiB (at any time, inside a
    /// transaction too; a smaller cache than it holds frees the excess pages at once).
    package func setPageCache(kibibytes: Int) throws(Failure) {
        try execute("PRAGMA cache_size=-\(max(0, kibibytes))")
    }

    deinit {
        close()
    }

    /// Finalizes every statement and closes the connection; later calls throw `closed`.
    package func close() {
        for statement in statementCache.values {
            statement.finalize()
        }
        statementCache.removeAll()
        keyedStatements.removeAll()
        sqlite3_close_v2(handle)
        handle = nil
    }

    /// How many rows the last finished INSERT, UPDATE or DELETE on this connection changed.
    package var changedRows: Int {
        Int(sqlite3_changes(handle))
    }

    /// The rowid of the last row an INSERT on this connection added.
    package var lastInsertedRowID: Int64 {
        sqlite3_last_insert_rowid(handle)
    }

    /// Runs one or more SQL statements that take no parameters; any rows they return are discarded.
    package func execute(_ sql: String) throws(Failure) {
        guard let handle else { throw Failure(sqlite: SQLiteError(.closed)) }
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else {
            throw Failure(sqlite: SQLiteError(.statementFailed, status: status, connection: handle))
        }
    }

    /// The prepared statement for `sql` (one statement), from the cache when it was prepared
    /// before, reset and with no bindings.
    package func statement(_ sql: String) throws(Failure) -> SQLiteStatement<Failure> {
        guard let handle else { throw Failure(sqlite: SQLiteError(.closed)) }
        if let cached = statementCache[sql] {
            cached.prepareForReuse()
            return cached
        }
        var raw: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &raw, nil)
        guard status == SQLITE_OK, let raw else {
            throw Failure(sqlite: SQLiteError(.statementFailed, status: status, connection: handle))
        }
        let statement = SQLiteStatement<Failure>(raw)
        statementCache[sql] = statement
        return statement
    }

    /// The prepared statement `key` names, reset and with no bindings: from the cache by key, so a
    /// hot path builds and hashes no SQL text; the first time, `sql()` gives its text and it is
    /// prepared (or found) as `statement(_:)` does. The caller names one SQL text by one key, always.
    package func statement(_ key: SQLiteStatementKey, _ sql: () -> String) throws(Failure) -> SQLiteStatement<Failure> {
        guard handle != nil else { throw Failure(sqlite: SQLiteError(.closed)) }
        if let cached = keyedStatements[key] {
            cached.prepareForReuse()
            return cached
        }
        let prepared = try statement(sql())
        keyedStatements[key] = prepared
        return prepared
    }

    /// Runs the statement `sql` with `values` bound to its parameters in order, discarding any rows.
    package func run(_ sql: String, _ values: [SQLiteValue] = []) throws(Failure) {
        try statement(sql).bind(values).run()
    }

    /// Runs the statement `sql` with `values` bound to its parameters in order and returns every row.
    package func query(_ sql: String, _ values: [SQLiteValue] = []) throws(Failure) -> [[SQLiteValue]] {
        try statement(sql).bind(values).rows()
    }

    /// Runs `body` in one transaction: commits when it returns, rolls back when it throws.
    ///
    /// `writing` begins with `BEGIN IMMEDIATE`, taking the write lock up front so no write inside
    /// fails on a lock another connection took meanwhile; otherwise `BEGIN` gives the body one
    /// consistent snapshot to read without taking the write lock.
    package func transaction<Result>(writing: Bool = true,
                                     _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        try inTransaction(writing: writing, body, lift: { $0 })
    }

    /// `transaction(writing:_:)` for a body that may throw errors of any type: they come out
    /// unchanged, and SQLite's own failures (BEGIN, COMMIT) come out as `Failure`.
    package func transaction<Result>(writing: Bool = true, _ body: () throws -> Result) throws -> Result {
        try inTransaction(writing: writing, body, lift: { $0 })
    }

    /// Writes the WAL back into the main file, so the file alone holds the whole database.
    package func checkpoint() throws(Failure) {
        try execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// The one transaction implementation: `lift` turns SQLite's failures into the body's error type.
    private func inTransaction<Result, BodyFailure: Error>(writing: Bool, _ body: () throws(BodyFailure) -> Result,
                                                           lift: (Failure) -> BodyFailure) throws(BodyFailure) -> Result {
        do throws(Failure) {
            try execute(writing ? "BEGIN IMMEDIATE" : "BEGIN")
        } catch {
            throw lift(error)
        }
        let result: Result
        do {
            result = try body()
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
        do throws(Failure) {
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw lift(error)
        }
        return result
    }
}

/// The name a connection's owner gives one of its SQL texts (`SQLiteConnection.statement(_:_:)`):
/// the owner's number for the query and the part of the text that varies (a table's name).
///
/// Invariant: a connection's owner maps each key to one SQL text only.
package struct SQLiteStatementKey: Hashable, Sendable {
    /// The owner's number of the query.
    package let query: Int
    /// What varies in the query's text (a namespace's table), empty when nothing does.
    package let scope: String

    /// The key of query `query` over `scope`.
    package init(query: Int, scope: String = "") {
        self.query = query
        self.scope = scope
    }
}
