import CSQLite
import Foundation

/// A value bound to or read from a SQLite statement.
package enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    /// The text, or `nil` for any other value.
    package var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The integer, or `nil` for any other value.
    package var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The number as a `Double`, or `nil` for non-numbers.
    package var real: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
}

/// A small SQLite connection: statements with bound values and transactions.
///
/// Invariant: the file is in WAL mode with `synchronous=FULL`, so a committed transaction
/// survives a crash or power loss and an interrupted one leaves no trace. Not thread-safe: the
/// owner serialises access (see `StateStore`).
package final class SQLiteDatabase {
    private let handle: OpaquePointer

    /// Opens or creates the database file at `path`.
    package init(path: String) throws(CloudError) {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &opened, flags, nil)
        guard rc == SQLITE_OK, let opened else {
            sqlite3_close_v2(opened)
            throw .localIO
        }
        handle = opened
        sqlite3_busy_timeout(handle, 5_000)
        let mode = try query("PRAGMA journal_mode=WAL").first?.first?.text
        guard mode?.lowercased() == "wal" else { throw .localIO }
        try execute("PRAGMA synchronous=FULL")
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs one statement and discards its rows.
    package func execute(_ sql: String, _ values: [SQLiteValue] = []) throws(CloudError) {
        _ = try query(sql, values)
    }

    /// Runs one statement and returns its rows.
    package func query(_ sql: String, _ values: [SQLiteValue] = []) throws(CloudError) -> [[SQLiteValue]] {
        var prepared: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &prepared, nil) == SQLITE_OK, let statement = prepared else {
            sqlite3_finalize(prepared)
            throw .localIO
        }
        defer { sqlite3_finalize(statement) }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32 = switch value {
            case .null: sqlite3_bind_null(statement, index)
            case .integer(let number): sqlite3_bind_int64(statement, index, number)
            case .real(let number): sqlite3_bind_double(statement, index, number)
            case .text(let string): sqlite3_bind_text(statement, index, string, -1, synckernel_sqlite_transient())
            }
            guard rc == SQLITE_OK else { throw .localIO }
        }
        var rows: [[SQLiteValue]] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return rows }
            guard rc == SQLITE_ROW else { throw .localIO }
            rows.append((0..<sqlite3_column_count(statement)).map { column(statement, $0) })
        }
    }

    /// Runs `body` inside `BEGIN … COMMIT` (`BEGIN IMMEDIATE` when it writes), rolling back when it throws.
    package func transaction<Result>(writing: Bool, _ body: () throws -> Result) throws -> Result {
        try execute(writing ? "BEGIN IMMEDIATE" : "BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    private func column(_ statement: OpaquePointer, _ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: .real(sqlite3_column_double(statement, index))
        case SQLITE_NULL: .null
        default: sqlite3_column_text(statement, index).map { .text(String(cString: $0)) } ?? .null
        }
    }
}
