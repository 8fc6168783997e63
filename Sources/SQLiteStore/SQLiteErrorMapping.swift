/// An error type a SQLite connection reports its failures as: each module that uses SQLiteStore
/// conforms its own error type once, with the one function that maps a `SQLiteError` into it.
///
/// Invariant: the mapping is total and keeps the no-user-data promise of `SQLiteError`; it may
/// drop detail (a module with one local-I/O error maps everything to it) but never adds user data.
package protocol SQLiteErrorMapping: Error {
    /// This module's error for the SQLite failure `error`.
    init(sqlite error: SQLiteError)
}
