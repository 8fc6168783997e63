import CSQLite

/// A prepared SQLite statement with positional binding (1-based) and column reads (0-based).
///
/// Invariant: owned and used only by its `Database`; reset before every reuse so no binding
/// leaks from one execution into the next.
package final class Statement {
    private let raw: OpaquePointer
    private unowned let database: Database

    init(_ raw: OpaquePointer, database: Database) {
        self.raw = raw
        self.database = database
    }

    deinit {
        sqlite3_finalize(raw)
    }

    func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    /// Binds a byte string (an empty one binds as a zero-length blob, never NULL).
    @discardableResult
    package func bind(_ index: Int32, _ value: [UInt8]) -> Statement {
        value.withUnsafeBytes { buffer in
            _ = sqlite3_bind_blob(raw, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count),
                                  synckernel_sqlite_transient())
        }
        return self
    }

    /// Binds text.
    @discardableResult
    package func bind(_ index: Int32, _ value: String) -> Statement {
        sqlite3_bind_text(raw, index, value, -1, synckernel_sqlite_transient())
        return self
    }

    /// Binds an integer.
    @discardableResult
    package func bind(_ index: Int32, _ value: Int64) -> Statement {
        sqlite3_bind_int64(raw, index, value)
        return self
    }

    /// Advances to the next row; false when done.
    package func step() throws(SyncKernelError) -> Bool {
        let status = sqlite3_step(raw)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(status)
        }
    }

    /// Steps once and reads the first row with `read`, then resets; nil when there is no row.
    package func first<Value>(_ read: (Statement) throws(SyncKernelError) -> Value) throws(SyncKernelError) -> Value? {
        defer { sqlite3_reset(raw) }
        guard try step() else { return nil }
        return try read(self)
    }

    /// Runs a statement that returns no rows.
    package func run() throws(SyncKernelError) {
        _ = try step()
        sqlite3_reset(raw)
    }

    /// The blob in column `index` (an empty array for NULL).
    package func blob(_ index: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(raw, index))
        guard count > 0, let pointer = sqlite3_column_blob(raw, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Whether column `index` is NULL.
    package func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(raw, index) == SQLITE_NULL
    }

    /// The integer in column `index`.
    package func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(raw, index)
    }

    /// The text in column `index` (empty for NULL).
    package func text(_ index: Int32) -> String {
        guard let pointer = sqlite3_column_text(raw, index) else { return "" }
        return String(cString: pointer)
    }
}
