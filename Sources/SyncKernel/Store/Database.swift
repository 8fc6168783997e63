import CSQLite

/// One SQLite connection, used by exactly one owner (a `KernelStore`).
///
/// Invariants: WAL journal with `synchronous=FULL`, so a committed transaction survives a crash
/// or power loss; every write the kernel makes happens inside `transaction(_:)`, which commits
/// all of it or rolls all of it back. Not `Sendable`: it never crosses an isolation boundary.
package final class Database {
    private var handle: OpaquePointer?
    private var statementCache: [String: Statement] = [:]

    /// Opens (creating if needed) the database at `path`; `":memory:"` opens a private one.
    package init(path: String) throws(SyncKernelError) {
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &connection, flags, nil)
        guard status == SQLITE_OK, let connection else {
            if let connection { sqlite3_close_v2(connection) }
            throw SyncKernelError(.sqlite, "open failed with status \(status)")
        }
        handle = connection
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
        try execute("PRAGMA foreign_keys=ON")
    }

    deinit {
        close()
    }

    /// Closes the connection; later calls fail with `storeClosed`.
    package func close() {
        statementCache.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Runs one or more SQL statements that take no parameters and return no rows.
    package func execute(_ sql: String) throws(SyncKernelError) {
        guard let handle else { throw SyncKernelError(.storeClosed) }
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status) }
    }

    /// A prepared statement for `sql`, cached per connection and reset before reuse.
    package func statement(_ sql: String) throws(SyncKernelError) -> Statement {
        guard let handle else { throw SyncKernelError(.storeClosed) }
        if let cached = statementCache[sql] {
            cached.reset()
            return cached
        }
        var raw: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &raw, nil)
        guard status == SQLITE_OK, let raw else { throw error(status) }
        let statement = Statement(raw, database: self)
        statementCache[sql] = statement
        return statement
    }

    /// Runs `body` in one IMMEDIATE transaction: commits when it returns, rolls back when it throws.
    package func transaction<Result>(_ body: () throws(SyncKernelError) -> Result) throws(SyncKernelError) -> Result {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Writes the WAL back into the main file, so the file alone holds the whole database.
    package func checkpoint() throws(SyncKernelError) {
        try execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    func error(_ status: Int32) -> SyncKernelError {
        let message = handle.flatMap { sqlite3_errstr(sqlite3_extended_errcode($0)) }.map { String(cString: $0) } ?? ""
        return SyncKernelError(.sqlite, "status \(status) \(message)")
    }
}
