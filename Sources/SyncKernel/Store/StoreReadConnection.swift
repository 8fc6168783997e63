import SQLiteStore

/// A read-only connection to a store file, beside the device that has it open for writing: what
/// reads the store without waiting for, or holding up, the device's own connection: an app's
/// reads (`read(_:_:)`) and a snapshot export (`StoreReadConnection+Snapshot`).
///
/// Invariants: the file is classified as `KernelStore` does before anything is read (a missing
/// file, one that is not SQLite or another application's database is refused with the same
/// errors); the connection takes no lease, migrates nothing, changes no journal mode and writes
/// nothing, so it reads what the writer last committed (on WAL, beside a write under way); each
/// page is read in one read transaction. A damaged row it meets is left out of what it returns
/// and not quarantined (it cannot write): the device's own connection quarantines it where it
/// next reads, ships or merges it. Not `Sendable`: one owner uses it on one thread, then closes it.
public final class StoreReadConnection {
    /// The namespaces read through the connection.
    public let namespaces: NamespaceSet
    let db: SQLiteConnection<SyncKernelError>
    let books: Bookkeeping

    /// Opens the store at `path` to read `namespaces` only; throws `notAStore` for a missing
    /// file or one that is not a store, `foreignDatabase` for another application's database.
    public init(path: String, namespaces: NamespaceSet) throws(SyncKernelError) {
        guard try StoreFile.classify(path) != .missing else { throw SyncKernelError(.notAStore, "no file") }
        self.namespaces = namespaces
        db = try SQLiteConnection<SyncKernelError>(readingOnly: path)
        books = Bookkeeping(db: db)
    }

    /// Runs `body` with a reader of namespace `N` inside one read transaction, so everything it
    /// reads is one committed state, and returns what it returns. Throws `unknownNamespace` for a
    /// namespace not in `namespaces` or one the store holds no table for yet.
    public func read<N: SyncNamespace, T>(_ namespace: N.Type,
                                          _ body: (NamespaceReader<N>) throws(SyncKernelError) -> T) throws(SyncKernelError) -> T {
        _ = try namespaces.driver(named: N.name)
        return try db.transaction(writing: false) { () throws(SyncKernelError) -> T in
            let tables = Set(try db.tableNames())
            guard tables.contains(Bookkeeping.rowTable(N.name)) else {
                throw SyncKernelError(.unknownNamespace, "the store holds no table for the namespace yet")
            }
            return try body(NamespaceReader(books: books, hasChangeLog: tables.contains("sk_change")))
        }
    }

    /// Closes the connection; it is unusable afterwards (every read throws).
    public func close() {
        db.close()
    }
}
