import CSQLite

/// A prepared statement of one `SQLiteConnection`: positional binding (1-based), stepping, and
/// column reads (0-based) of the current row.
///
/// Invariants: created, cached and handed out only by its connection, which resets it and clears
/// every binding before each reuse, so no value bound for one execution leaks into the next (an
/// unbound parameter is NULL). A bind SQLite refuses makes every `step` throw, until the
/// connection hands the statement out again, rather than run with a missing value. Once the
/// connection closes, the statement is finalized and every `step` throws `closed`; reads then
/// see no row. Not `Sendable`: it stays with its connection's owner.
package final class SQLiteStatement<Failure: SQLiteErrorMapping> {
    private var raw: OpaquePointer?
    private var bindStatus = SQLITE_OK

    /// Wraps a statement just prepared by the connection.
    init(_ raw: OpaquePointer) {
        self.raw = raw
    }

    deinit {
        sqlite3_finalize(raw)
    }

    /// Resets the statement and clears its bindings, ready for another execution.
    func prepareForReuse() {
        guard let raw else { return }
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
        bindStatus = SQLITE_OK
    }

    /// Finalizes the statement when its connection closes; later steps throw `closed`.
    func finalize() {
        sqlite3_finalize(raw)
        raw = nil
    }

    // MARK: Binding

    /// Binds bytes; an empty array binds a zero-length blob, never NULL.
    @discardableResult
    package func bind(_ index: Int32, _ value: [UInt8]) -> Self {
        let status = value.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return sqlite3_bind_zeroblob(raw, index, 0) }
            return sqlite3_bind_blob64(raw, index, base, sqlite3_uint64(buffer.count), synckernel_sqlite_transient())
        }
        return record(status)
    }

    /// Binds text.
    @discardableResult
    package func bind(_ index: Int32, _ value: String) -> Self {
        record(sqlite3_bind_text(raw, index, value, -1, synckernel_sqlite_transient()))
    }

    /// Binds an integer.
    @discardableResult
    package func bind(_ index: Int32, _ value: Int64) -> Self {
        record(sqlite3_bind_int64(raw, index, value))
    }

    /// Binds a tagged value: NULL, an integer, a double, text or bytes.
    @discardableResult
    package func bind(_ index: Int32, _ value: SQLiteValue) -> Self {
        switch value {
        case .null: record(sqlite3_bind_null(raw, index))
        case .integer(let number): bind(index, number)
        case .real(let number): record(sqlite3_bind_double(raw, index, number))
        case .text(let string): bind(index, string)
        case .blob(let bytes): bind(index, bytes)
        }
    }

    /// Binds `values` to parameters 1, 2, … in order.
    @discardableResult
    package func bind(_ values: [SQLiteValue]) -> Self {
        for (offset, value) in values.enumerated() {
            bind(Int32(offset + 1), value)
        }
        return self
    }

    /// Keeps the first refused bind's status for `step` to throw.
    private func record(_ status: Int32) -> Self {
        if bindStatus == SQLITE_OK, raw != nil { bindStatus = status }
        return self
    }

    // MARK: Running

    /// Advances to the next row: true on a row, false when the statement is done.
    package func step() throws(Failure) -> Bool {
        guard let raw else { throw Failure(sqlite: SQLiteError(.closed)) }
        guard bindStatus == SQLITE_OK else { throw Failure(sqlite: SQLiteError(.statementFailed, status: bindStatus)) }
        let status = sqlite3_step(raw)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw Failure(sqlite: SQLiteError(.statementFailed, status: status, connection: sqlite3_db_handle(raw)))
        }
    }

    /// Steps once and reads the first row with `read`, then resets; `nil` when there is no row.
    package func first<Value>(_ read: (SQLiteStatement) throws(Failure) -> Value) throws(Failure) -> Value? {
        defer { sqlite3_reset(raw) }
        guard try step() else { return nil }
        return try read(self)
    }

    /// Runs a statement that returns no rows, then resets it.
    package func run() throws(Failure) {
        defer { sqlite3_reset(raw) }
        _ = try step()
    }

    /// Steps through every row and returns each as its column values, then resets.
    package func rows() throws(Failure) -> [[SQLiteValue]] {
        defer { sqlite3_reset(raw) }
        var rows: [[SQLiteValue]] = []
        while try step() {
            rows.append((0..<sqlite3_column_count(raw)).map(value))
        }
        return rows
    }

    // MARK: Reading the current row

    /// The bytes in column `index` (empty for NULL and for a zero-length blob).
    package func blob(_ index: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(raw, index))
        guard count > 0, let pointer = sqlite3_column_blob(raw, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The text in column `index` (empty for NULL).
    package func text(_ index: Int32) -> String {
        guard let pointer = sqlite3_column_text(raw, index) else { return "" }
        return String(cString: pointer)
    }

    /// The integer in column `index` (0 for NULL).
    package func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(raw, index)
    }

    /// Whether column `index` is NULL.
    package func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(raw, index) == SQLITE_NULL
    }

    /// The value in column `index`, tagged with the storage class SQLite reports for it.
    package func value(_ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(raw, index) {
        case SQLITE_INTEGER: .integer(int64(index))
        case SQLITE_FLOAT: .real(sqlite3_column_double(raw, index))
        case SQLITE_TEXT: .text(text(index))
        case SQLITE_BLOB: .blob(blob(index))
        default: .null
        }
    }
}
