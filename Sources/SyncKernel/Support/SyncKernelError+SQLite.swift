import SQLiteStore

extension SyncKernelError: SQLiteErrorMapping {
    /// The kernel's error for a SQLite failure: `storeClosed` for a closed connection, otherwise
    /// `sqlite` with the status and SQLite's fixed text for it.
    ///
    /// Invariant: the detail holds only numbers and SQLite's own fixed strings, never user data.
    package init(sqlite error: SQLiteError) {
        switch error.code {
        case .closed: self.init(.storeClosed)
        case .openFailed: self.init(.sqlite, "open failed with status \(error.status)")
        case .walUnavailable: self.init(.sqlite, "the database does not take the WAL journal mode")
        case .createFailed: self.init(.sqlite, "a new store could not be put in place")
        default: self.init(.sqlite, "status \(error.status) \(error.message)")
        }
    }
}
