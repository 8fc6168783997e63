import SQLiteStore

/// How `KernelStore` decides what the file at its path is before it writes anything there, and
/// how it creates a new one.
///
/// Invariants: a store is marked with `applicationID` in its SQLite header from its first
/// transaction. A path with no file gets a new store, created whole or not at all
/// (`SQLiteConnection.create`), so a crash never leaves an empty file a later open would adopt.
/// An existing file is opened only when it is one of ours: its header carries the mark, or it
/// carries none and holds the kernel's tables and nothing else (a store of an earlier build,
/// which then gets the mark). A zero-length file and a file that is not a SQLite database are
/// refused with `notAStore`; a SQLite database with another mark, or with none and other
/// tables (or none at all), with `foreignDatabase`. A refused file is only read (its header,
/// and for an unmarked database its schema through a read-only connection): its bytes are
/// never written.
enum StoreFile {
    /// The application id of a kernel store: "SynK" in ASCII.
    static let applicationID: Int32 = 0x5379_6E4B

    /// Tables only a store of this package ever held (today's and those of earlier builds).
    static let kernelTables: Set<String> = ["sk_version", "sk_row_version", "sk_tombstone", "sk_row_format", "sk_structure"]

    /// What an existing path holds, once it is known to be ours.
    enum Found {
        /// No file: a new store is created.
        case missing
        /// A store carrying the mark.
        case marked
        /// A store of an earlier build: the kernel's tables, no mark yet.
        case unmarked
    }

    /// Opens the store at `path` for writing, creating it when no file is there and marking one of
    /// an earlier build; throws `notAStore` or `foreignDatabase` (having written nothing) for a
    /// file that is not one of ours, and `storeInUse` (having written nothing) when another open
    /// store holds the file's `StoreLock`. The lock is taken before the first write to an existing
    /// file, and right after a new store is linked into place (a creation that loses the race to
    /// another process's then meets that process's lock); the caller releases it after closing the
    /// connection. An in-memory store takes no lock.
    static func open(_ path: String) throws(SyncKernelError) -> (db: SQLiteConnection<SyncKernelError>, lock: StoreLock?) {
        if path == ":memory:" {
            let db = try SQLiteConnection<SyncKernelError>(path: path)
            try db.setApplicationID(applicationID)
            return (db, nil)
        }
        var found = try classify(path)
        if found == .missing {
            do throws(SyncKernelError) {
                try SQLiteConnection<SyncKernelError>.create(at: path) { (db: SQLiteConnection<SyncKernelError>) throws(SyncKernelError) in
                    try db.setApplicationID(applicationID)
                    try db.execute(Bookkeeping.schema)
                }
            } catch {
                // Another process created the store meanwhile: its file is used (and locked) like any.
                found = try classify(path)
                guard found != .missing else { throw error }
            }
        }
        let lock = try StoreLock(path: path)
        let db = try SQLiteConnection<SyncKernelError>(path: path, create: false)
        if found == .unmarked {
            do throws(SyncKernelError) {
                try db.transaction { () throws(SyncKernelError) in try db.setApplicationID(applicationID) }
            } catch {
                db.close()
                lock.release()
                throw error
            }
        }
        return (db, lock)
    }

    /// What the file at `path` is, refusing a file that is not one of ours.
    static func classify(_ path: String) throws(SyncKernelError) -> Found {
        let file: SQLiteFile
        do {
            file = try SQLiteFile.classify(path)
        } catch {
            throw SyncKernelError(sqlite: error)
        }
        switch file {
        case .missing:
            return .missing
        case .empty:
            throw SyncKernelError(.notAStore, "a zero-length file")
        case .notSQLite:
            throw SyncKernelError(.notAStore, "not a SQLite database")
        case .database(let id, _) where id == applicationID:
            return .marked
        case .database(let id, _) where id != 0:
            throw SyncKernelError(.foreignDatabase, "a SQLite database with another application id")
        case .database(_, let isWAL):
            guard isWAL else { throw SyncKernelError(.foreignDatabase, "a SQLite database not in WAL mode and not marked") }
            return try classifyUnmarked(path)
        }
    }

    /// Looks inside an unmarked WAL database through a read-only connection: ours when the WAL
    /// holds the mark, or when its tables are the kernel's (at least one table only the kernel
    /// makes, and every table `sk_` or `ns_`).
    private static func classifyUnmarked(_ path: String) throws(SyncKernelError) -> Found {
        let peek = try SQLiteConnection<SyncKernelError>(readingOnly: path)
        defer { peek.close() }
        let id = try peek.applicationID()
        if id == applicationID { return .marked }
        guard id == 0 else { throw SyncKernelError(.foreignDatabase, "a SQLite database with another application id") }
        let tables = try peek.tableNames()
        guard !kernelTables.isDisjoint(with: tables),
              tables.allSatisfy({ $0.hasPrefix("sk_") || $0.hasPrefix("ns_") }) else {
            throw SyncKernelError(.foreignDatabase, "a SQLite database without the kernel's tables")
        }
        return .unmarked
    }

    /// The namespaces whose row tables the store at `path` holds, read without opening it for
    /// writing; refuses a path that holds no store (`notAStore` for a missing file too).
    static func storedNamespaces(_ path: String) throws(SyncKernelError) -> [String] {
        guard try classify(path) != .missing else { throw SyncKernelError(.notAStore, "no file") }
        let peek = try SQLiteConnection<SyncKernelError>(readingOnly: path)
        defer { peek.close() }
        return try peek.tableNames().filter { $0.hasPrefix("ns_") }.map { String($0.dropFirst(3)) }
    }
}
