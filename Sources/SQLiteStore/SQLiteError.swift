import CSQLite

/// The one error type of the SQLiteStore module: a SQLite call that failed, with its status.
///
/// Invariants: `code` is one of the static members of `Code`, stable across releases; `status`
/// is the result code SQLite returned (`SQLITE_OK` when SQLite itself reported nothing, as for a
/// closed connection); `message` is SQLite's fixed text for the status (`sqlite3_errstr`), never
/// the connection's message, so no SQL, path, name or bound value ever appears in an error.
package struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable machine-readable reason: a code string ("SQ201") and a symbolic name.
    ///
    /// Invariants: every code is one of the static members below (the initialiser is private)
    /// and is listed in `all`; code strings are unique and never change or pass to another
    /// reason; the first digit names the layer (1 the connection and its file, 2 statements).
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable code string, for example "SQ201".
        package let rawValue: String
        /// The symbolic name, for example "statementFailed".
        package let name: String

        private init(_ rawValue: String, _ name: String) {
            self.rawValue = rawValue
            self.name = name
        }

        /// The code string and the name, for example "SQ201 statementFailed".
        package var description: String { "\(rawValue) \(name)" }

        /// The database could not be opened or created.
        package static let openFailed = Code("SQ101", "openFailed")
        /// The database file does not take the WAL journal mode.
        package static let walUnavailable = Code("SQ102", "walUnavailable")
        /// The connection was used after it was closed.
        package static let closed = Code("SQ103", "closed")
        /// A new database could not be put in place (a file appeared at its path meanwhile, or
        /// the file system refused the link).
        package static let createFailed = Code("SQ104", "createFailed")
        /// SQLite refused to prepare, bind, step or execute a statement (BEGIN, COMMIT and pragmas too).
        package static let statementFailed = Code("SQ201", "statementFailed")

        /// Every code, in code order.
        package static let all: [Code] = [openFailed, walUnavailable, closed, createFailed, statementFailed]
    }

    /// The stable reason.
    package let code: Code
    /// The SQLite result code, `SQLITE_OK` when SQLite reported none.
    package let status: Int32
    /// SQLite's fixed text for `status`; empty when SQLite reported none.
    package let message: String

    /// Creates an error for a reason SQLite itself did not report (a closed connection, a refused mode).
    init(_ code: Code) {
        self.code = code
        status = SQLITE_OK
        message = ""
    }

    /// Creates an error for `status`, with the text of the connection's extended code when
    /// `connection` is given (as `sqlite3_errstr` gives it: the same fixed text, never user data).
    init(_ code: Code, status: Int32, connection: OpaquePointer? = nil) {
        self.code = code
        self.status = status
        let text = sqlite3_errstr(connection.map(sqlite3_extended_errcode) ?? status)
        message = text.map { String(cString: $0) } ?? ""
    }

    /// Whether SQLite said the disk or its quota is full (`SQLITE_FULL`; SQLite reports a write
    /// the file system refused for want of space, `ENOSPC`, as this too).
    package var isStorageFull: Bool { status & 0xff == SQLITE_FULL }

    /// Whether SQLite said the database cannot be written (`SQLITE_READONLY` and its extended
    /// codes: a read-only file, folder or mount).
    package var isReadOnly: Bool { status & 0xff == SQLITE_READONLY }

    /// The code, and the status with its text when SQLite reported one.
    package var description: String {
        status == SQLITE_OK ? "SQLiteError(\(code))" : "SQLiteError(\(code): status \(status) \(message))"
    }
}

extension SQLiteError: SQLiteErrorMapping {
    /// The error itself: a caller that wants SQLite's errors unmapped uses `SQLiteConnection<SQLiteError>`.
    package init(sqlite error: SQLiteError) {
        self = error
    }
}
