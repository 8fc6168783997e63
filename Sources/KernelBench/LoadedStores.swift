import Foundation
import SQLiteStore
import SyncKernel

/// Two store files holding the same rows, each loaded in one transaction, plus what the loads
/// measured.
///
/// Invariants: both files hold byte-identical rows and bookkeeping: they are loaded under one
/// origin device (as two devices that both took the rows from a third), so an edit made after
/// the load is causally later on both sides; the files are checkpointed and closed, ready to be
/// opened or copied.
struct LoadedStores {
    /// The origin device both loads write as.
    static let origin = "origin"

    /// Replica A's store file.
    let pathA: String
    /// Replica B's store file.
    let pathB: String
    /// Rows loaded into each.
    let rows: Int
    /// Wall seconds of each store's load transaction (A, then B), `write` call only.
    let loadSeconds: [Double]
    /// Of those, the seconds spent keeping the persisted structure current (A, then B).
    let upkeepSeconds: [Double]
    /// Wall seconds to insert the same encoded rows into a plain `key, row` SQLite table in one
    /// transaction, on a connection with the kernel's pragmas and its page cache policy (the
    /// bulk cache from `KernelStore.bulkWriteRows` rows on, as a kernel write gets).
    let sqliteSeconds: Double

    /// Loads `rows` rows of `source` into two stores in `directory`, then the SQLite baseline.
    static func load(rows: Int, source: RowSource, into directory: String) throws(SyncKernelError) -> LoadedStores {
        let pathA = directory + "/base-a.sqlite"
        let pathB = directory + "/base-b.sqlite"
        var seconds: [Double] = []
        var upkeep: [Double] = []
        for path in [pathA, pathB] {
            let store = try KernelStore(path: path, namespaces: NamespaceSet([BenchNamespace.self]))
            try store.configureDevice(try BenchDevices.device(origin))
            let started = ContinuousClock.now
            try store.write(BenchNamespace.self) { tx throws(SyncKernelError) in
                for index in 0..<rows { try tx.save(source.row(.shared, index, stamp: RowSource.loadStamp)) }
            }
            seconds.append(started.duration(to: .now).seconds)
            upkeep.append(store.structureUpkeepTime.seconds)
            try store.checkpoint()
            store.close()
        }
        return LoadedStores(pathA: pathA, pathB: pathB, rows: rows, loadSeconds: seconds, upkeepSeconds: upkeep,
                            sqliteSeconds: try plainSQLiteSeconds(rows: rows, source: source, path: directory + "/plain.sqlite"))
    }

    /// The time to write the same rows with no kernel: one table, one transaction, same encoding.
    private static func plainSQLiteSeconds(rows: Int, source: RowSource, path: String) throws(SyncKernelError) -> Double {
        let db = try SQLiteConnection<SyncKernelError>(path: path)
        defer {
            db.close()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        try db.execute("CREATE TABLE plain(key BLOB PRIMARY KEY, row BLOB NOT NULL) WITHOUT ROWID")
        let started = ContinuousClock.now
        try db.transaction { () throws(SyncKernelError) in
            for index in 0..<rows {
                let row = source.row(.shared, index, stamp: RowSource.loadStamp)
                try db.statement("INSERT OR REPLACE INTO plain(key, row) VALUES(?, ?)")
                    .bind(1, row.id).bind(2, BenchNamespace.rowEncoding(of: row)).run()
                if index + 1 == KernelStore.bulkWriteRows {
                    try db.setPageCache(kibibytes: SQLiteConnection<SyncKernelError>.bulkPageCacheKibibytes)
                }
            }
        }
        return started.duration(to: .now).seconds
    }

    /// Copies both files into `directory` (for one grid point); returns the copies' paths.
    func copy(into directory: String) throws -> (a: String, b: String) {
        let copies = (a: directory + "/a.sqlite", b: directory + "/b.sqlite")
        try FileManager.default.copyItem(atPath: pathA, toPath: copies.a)
        try FileManager.default.copyItem(atPath: pathB, toPath: copies.b)
        return copies
    }
}
