import CSQLite

/// Raw SQL against a closed store file, to model damage a test needs (never used by the library).
enum SQLiteTestHelper {
    struct Failure: Error {
        let status: Int32
    }

    static func execute(_ sql: String, at path: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open(path, &handle) == SQLITE_OK else { throw Failure(status: -1) }
        defer { sqlite3_close(handle) }
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw Failure(status: status) }
    }
}
