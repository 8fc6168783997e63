import SQLiteStore

extension CloudError: SQLiteErrorMapping {
    /// CloudAnchor's error for a SQLite failure: the state file could not be read or written.
    ///
    /// Invariant: every SQLite failure is `localIO`, whatever its status, as the state file's
    /// callers need no more than that.
    package init(sqlite error: SQLiteError) {
        self = .localIO
    }
}
