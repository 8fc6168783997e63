import Foundation
import SyncKernel
import XCTest

/// `StoreReadConnection`: a read-only connection beside the store a device has open pages the
/// same snapshot as the store's own connection, sees what the writer committed since, leaves a
/// damaged row out without quarantining it, and refuses a file that is not a store.
final class StoreReadConnectionTests: XCTestCase {
    private typealias Row = RecordNamespace.Row

    /// Every page of `namespace` from `source`, `maxKeys` keys at a time.
    private func pages(_ source: any SnapshotPageSource, maxKeys: Int) throws -> [SnapshotPage] {
        var pages: [SnapshotPage] = []
        var cursor: [UInt8]?
        while true {
            let page = try source.snapshotPage(namespace: RecordNamespace.name, after: cursor, maxKeys: maxKeys, maxBytes: 1 << 20)
            pages.append(page)
            guard !page.isLast, let last = page.lastKey else { return pages }
            cursor = last
        }
    }

    private func filledStore(_ world: TestWorld, path: String, rows: Int) throws -> KernelStore {
        let store = try world.store(path: path)
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<rows { try tx.save(Row(id: "r\(index)", value: "v\(index)", updatedAt: 1)) }
        }
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in stride(from: 0, to: rows, by: 7) { try tx.delete(key: Array("r\(index)".utf8)) }
            for index in stride(from: 3, to: rows, by: 5) { try tx.save(Row(id: "r\(index)", value: "edited", updatedAt: 2)) }
        }
        return store
    }

    func testAReadConnectionBesideTheOpenStorePagesWhatTheStorePages() throws {
        let world = try TestWorld()
        let path = world.path()
        let store = try filledStore(world, path: path, rows: 120)
        defer { store.close() }
        let reader = try StoreReadConnection(path: path, namespaces: store.namespaces)
        defer { reader.close() }
        let fromReader = try pages(reader, maxKeys: 13)
        XCTAssertEqual(fromReader, try pages(store, maxKeys: 13))
        XCTAssertGreaterThan(fromReader.count, 5, "several pages")
        XCTAssertFalse(fromReader.flatMap(\.response.tombstones).isEmpty, "deletes are paged too")
    }

    func testAReadConnectionSeesWhatTheWriterCommittedSinceAndNothingUncommitted() throws {
        let world = try TestWorld()
        let path = world.path()
        let store = try filledStore(world, path: path, rows: 20)
        defer { store.close() }
        let reader = try StoreReadConnection(path: path, namespaces: store.namespaces)
        defer { reader.close() }
        let before = try pages(reader, maxKeys: 100).flatMap(\.response.rows).count
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 100..<105 { try tx.save(Row(id: "r\(index)", value: "later", updatedAt: 3)) }
        }
        XCTAssertEqual(try pages(reader, maxKeys: 100).flatMap(\.response.rows).count, before + 5)
        struct Abandoned: Error {}
        XCTAssertThrowsError(try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "r200", value: "never committed", updatedAt: 4))
            throw SyncKernelError(.limitExceeded, "abandoned")
        })
        XCTAssertEqual(try pages(reader, maxKeys: 100).flatMap(\.response.rows).count, before + 5)
    }

    func testADamagedRowIsLeftOutAndOnlyTheDevicesOwnConnectionQuarantinesIt() throws {
        let world = try TestWorld()
        let path = world.path()
        try filledStore(world, path: path, rows: 10).close()
        try SQLiteTestHelper.execute("UPDATE ns_\(RecordNamespace.name) SET row = x'ff00ff' WHERE key = x'\(Hex.encode(Array("r4".utf8)))'",
                                     at: path)
        let store = try world.store(path: path)
        defer { store.close() }
        let reader = try StoreReadConnection(path: path, namespaces: store.namespaces)
        defer { reader.close() }
        let read = try pages(reader, maxKeys: 100)
        XCTAssertEqual(read.flatMap(\.response.rows).count, 7, "ten rows, two deleted, one damaged")
        XCTAssertFalse(read.flatMap(\.response.rows).contains { $0.row == [0xff, 0x00, 0xff] })
        XCTAssertEqual(read.map(\.keysLeftOut).reduce(0, +), 1)
        XCTAssertEqual(try store.quarantinedRows(), [], "the reader wrote nothing")
        XCTAssertEqual(try pages(store, maxKeys: 100).flatMap(\.response.rows), read.flatMap(\.response.rows))
        XCTAssertEqual(try store.quarantinedRows().count, 1, "the store's own connection quarantines it")
    }

    func testRejectAMissingFileAndOneThatIsNotAStore() throws {
        let world = try TestWorld()
        let namespaces = try NamespaceSet([RecordNamespace.self])
        XCTAssertThrowsError(try StoreReadConnection(path: world.path(), namespaces: namespaces)) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .notAStore)
        }
        let text = world.path()
        try Data("not a database at all".utf8).write(to: URL(fileURLWithPath: text))
        XCTAssertThrowsError(try StoreReadConnection(path: text, namespaces: namespaces)) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .notAStore)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: text)), Data("not a database at all".utf8), "left as it was")
    }
}
