import SQLiteStore
@testable import SyncKernel
import XCTest

/// A transaction that writes more than `RowWriter.bulkRows` rows runs with the larger page cache
/// and sets it back when it ends, committed or rolled back; a smaller one never changes it.
final class BulkWriteTests: XCTestCase {
    private typealias Row = RecordNamespace.Row

    /// The connection's page cache in KiB, as SQLite reports it (a negative `cache_size`).
    private func cacheKibibytes(_ store: KernelStore) throws(SyncKernelError) -> Int {
        -Int(try store.db.statement("PRAGMA cache_size").first { $0.int64(0) } ?? 0)
    }

    func testABulkWriteGrowsThePageCacheWhileItRunsAndSetsItBackAfterwards() throws {
        let world = try TestWorld()
        let store = try world.store()
        let normal = SQLiteConnection<SyncKernelError>.pageCacheKibibytes
        let bulk = SQLiteConnection<SyncKernelError>.bulkPageCacheKibibytes
        XCTAssertGreaterThan(bulk, normal)
        XCTAssertEqual(try cacheKibibytes(store), normal)
        var during: [Int] = []
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<RowWriter.bulkRows + 1 {
                try tx.save(Row(id: "r\(index)", value: "v", updatedAt: 1))
                if index == RowWriter.bulkRows - 2 || index == RowWriter.bulkRows {
                    during.append(try self.cacheKibibytes(store))
                }
            }
        }
        XCTAssertEqual(during, [normal, bulk], "the cache grows once the transaction has written bulkRows rows")
        XCTAssertEqual(try cacheKibibytes(store), normal, "and is set back once it committed")

        XCTAssertThrowsError(try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<RowWriter.bulkRows + 1 { try tx.save(Row(id: "s\(index)", value: "w", updatedAt: 2)) }
            XCTAssertEqual(try self.cacheKibibytes(store), bulk)
            throw SyncKernelError(.rowRejected, "roll back")
        })
        XCTAssertEqual(try cacheKibibytes(store), normal, "and once it rolled back")
        XCTAssertEqual(try store.rows(RecordNamespace.self).count, RowWriter.bulkRows + 1)
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "small", value: "v", updatedAt: 1))
            XCTAssertEqual(try self.cacheKibibytes(store), normal, "a small write keeps the cache")
        }
    }
}
