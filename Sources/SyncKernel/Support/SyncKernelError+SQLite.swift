import SQLiteStore

extension SyncKernelError: SQLiteErrorMapping {
    /// The kernel's error for a SQLite failure: `storeClosed` for a closed connection,
    /// `storageFull` for `SQLITE_FULL` (a full disk or quota), `storeReadOnly` for
    /// `SQLITE_READONLY` and its extended codes, otherwise `sqlite` with the status and SQLite's
    /// fixed text for it.
    ///
    /// Invariant: the detail holds only numbers and SQLite's own fixed strings, never user data.
    package init(sqlite error: SQLiteError) {
        switch error.code {
        case .closed: self.init(.storeClosed)
        case .openFailed: self.init(.sqlite, "open failed with status \(error.status)")
        case .walUnavailable: self.init(.sqlite, "the database does not take the WAL journal mode")
        case .createFailed: self.init(.sqlite, "a new store could not be put in place")
        case _ where error.isStorageFull: self.init(.storageFull, "status \(error.status) \(error.message)")
        case _ where error.isReadOnly: self.init(.storeReadOnly, "status \(error.status) \(error.message)")
        default: self.init(.sqlite, "status \(error.status) \(error.message)")
        }
    }
}
