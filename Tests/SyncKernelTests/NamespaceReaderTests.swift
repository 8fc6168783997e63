import Foundation
import NotebookNamespace
import SyncKernel
import SyncKernelSimulator
import XCTest

/// `NamespaceReader` through a `StoreReadConnection`: a row by key, pages in key order that
/// never skip or repeat a row (a damaged one included), pages by key prefix and by key range, the count, the keys
/// in conflict, one committed state per read, and refusals for a namespace it cannot read.
final class NamespaceReaderTests: XCTestCase {
    private typealias Row = RecordNamespace.Row

    private func key(_ index: Int) -> String { "k" + String(format: "%03d", index) }

    /// A closed store of `count` records keyed `k000`...; returns its path.
    private func storeOfRecords(_ world: TestWorld, count: Int) throws -> String {
        let path = world.path()
        let store = try world.store(path: path)
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<count { try tx.save(Row(id: key(index), value: "v\(index)", updatedAt: 1)) }
        }
        store.close()
        return path
    }

    private func reader(_ path: String) throws -> StoreReadConnection {
        try StoreReadConnection(path: path, namespaces: NamespaceSet([RecordNamespace.self]))
    }

    /// Every row of `read`'s pages of `limit` (of the prefix, or the range from `start` below
    /// `end`, when given), following each page's cursor to the end.
    private func allPages(_ connection: StoreReadConnection, prefix: [UInt8]? = nil, range: (start: [UInt8], end: [UInt8]?)? = nil,
                          limit: Int) throws -> [String] {
        var ids: [String] = []
        var after: [UInt8]?
        repeat {
            let page = try connection.read(RecordNamespace.self) { reader throws(SyncKernelError) in
                if let prefix { return try reader.rows(withPrefix: prefix, after: after, limit: limit) }
                if let range { return try reader.rows(from: range.start, below: range.end, after: after, limit: limit) }
                return try reader.rows(after: after, limit: limit)
            }
            ids += page.rows.map(\.row.id)
            XCTAssertEqual(page.rows.map(\.key), page.rows.map { Array($0.row.id.utf8) }, "each row with its key")
            after = page.next
        } while after != nil
        return ids
    }

    func testPagesInKeyOrderCoverEveryRowOnceAndEndWithNoCursor() throws {
        let world = try TestWorld()
        let path = try storeOfRecords(world, count: 53)
        let connection = try reader(path)
        defer { connection.close() }
        let expected = (0..<53).map(key)
        for limit in [1, 7, 53, 54, 1_000] {
            XCTAssertEqual(try allPages(connection, limit: limit), expected, "limit \(limit)")
        }
        let first = try connection.read(RecordNamespace.self) { reader throws(SyncKernelError) in try reader.rows(limit: 10) }
        XCTAssertEqual(first.rows.count, 10)
        XCTAssertEqual(first.next, Array(key(9).utf8))
        let clamped = try connection.read(RecordNamespace.self) { reader throws(SyncKernelError) in try reader.rows(limit: 0) }
        XCTAssertEqual(clamped.rows.map(\.row.id), [key(0)], "a limit below one reads one row")
        let row = try connection.read(RecordNamespace.self) { reader throws(SyncKernelError) in
            (try reader.row(forKey: Array(key(17).utf8)), try reader.row(forKey: Array("absent".utf8)), try reader.count())
        }
        XCTAssertEqual(row.0?.value, "v17")
        XCTAssertNil(row.1)
        XCTAssertEqual(row.2, 53)
    }

    func testPrefixPagesReadOnlyTheirKeys() throws {
        let world = try TestWorld()
        let path = try storeOfRecords(world, count: 130)
        let connection = try reader(path)
        defer { connection.close() }
        XCTAssertEqual(try allPages(connection, prefix: Array("k01".utf8), limit: 3), (10..<20).map(key))
        XCTAssertEqual(try allPages(connection, prefix: Array("k1".utf8), limit: 8), (100..<130).map(key))
        XCTAssertEqual(try allPages(connection, prefix: Array("z".utf8), limit: 5), [])
        XCTAssertEqual(try allPages(connection, prefix: [], limit: 50), (0..<130).map(key), "an empty prefix reads every row")
        XCTAssertEqual(try allPages(connection, prefix: [0xff, 0xff], limit: 5), [], "a prefix with no successor")
    }

    func testRangePagesReadTheirHalfOpenRangeOnly() throws {
        let world = try TestWorld()
        let path = try storeOfRecords(world, count: 130)
        let connection = try reader(path)
        defer { connection.close() }
        let k = { (index: Int) in Array(self.key(index).utf8) }
        XCTAssertEqual(try allPages(connection, range: (k(10), k(20)), limit: 3), (10..<20).map(key), "start in, end out")
        XCTAssertEqual(try allPages(connection, range: (k(125), nil), limit: 2), (125..<130).map(key), "no end: to the last key")
        XCTAssertEqual(try allPages(connection, range: ([], k(3)), limit: 10), (0..<3).map(key), "an empty start: from the first key")
        XCTAssertEqual(try allPages(connection, range: (Array("k0105".utf8), Array("k012".utf8)), limit: 4), (11..<12).map(key),
                       "bounds between keys")
        XCTAssertEqual(try allPages(connection, range: (k(20), k(10)), limit: 5), [], "an end below the start")
        XCTAssertEqual(try allPages(connection, range: (k(20), k(20)), limit: 5), [], "an end equal to the start")
        XCTAssertEqual(try allPages(connection, range: ([], []), limit: 5), [], "below the empty key lies nothing")
        let resumed = try connection.read(RecordNamespace.self) { reader throws(SyncKernelError) in
            try reader.rows(from: k(10), below: k(20), after: k(14), limit: 100)
        }
        XCTAssertEqual(resumed.rows.map(\.row.id), (15..<20).map(key), "a cursor resumes inside the range")
        XCTAssertNil(resumed.next)
    }

    func testADamagedRowIsSkippedWithoutStallingThePagesAndReadsAsAbsent() throws {
        let world = try TestWorld()
        let path = try storeOfRecords(world, count: 20)
        for damaged in [3, 4, 5] {
            try SQLiteTestHelper.execute("UPDATE ns_\(RecordNamespace.name) SET row = x'ff00' WHERE key = x'\(Hex.encode(Array(key(damaged).utf8)))'",
                                         at: path)
        }
        let connection = try reader(path)
        defer { connection.close() }
        XCTAssertEqual(try allPages(connection, limit: 3), (0..<20).filter { ![3, 4, 5].contains($0) }.map(key),
                       "a page of damaged rows only still moves on")
        let damaged = try connection.read(RecordNamespace.self) { reader throws(SyncKernelError) in
            try reader.row(forKey: Array(key(5).utf8))
        }
        XCTAssertNil(damaged)
        XCTAssertEqual(try SQLiteTestHelper.integer("SELECT COUNT(*) FROM sk_quarantine", at: path), 0, "a read quarantines nothing")
    }

    func testOneReadSeesOneCommittedStateWhileTheWriterCommits() throws {
        let world = try TestWorld()
        let path = world.path()
        let store = try world.store(path: path)
        defer { store.close() }
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<10 { try tx.save(Row(id: key(index), value: "first", updatedAt: 1)) }
        }
        let connection = try reader(path)
        defer { connection.close() }
        let (before, during) = try connection.read(RecordNamespace.self) { reader throws(SyncKernelError) in
            let before = try reader.rows(limit: 100).rows.map(\.row.value)
            try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
                for index in 0..<20 { try tx.save(Row(id: key(index), value: "second", updatedAt: 2)) }
            }
            return (before, (try reader.rows(limit: 100).rows.map(\.row.value), try reader.count()))
        }
        XCTAssertEqual(before, Array(repeating: "first", count: 10))
        XCTAssertEqual(during.0, before, "the same state inside one read")
        XCTAssertEqual(during.1, 10)
        let after = try connection.read(RecordNamespace.self) { reader throws(SyncKernelError) in try reader.rows(limit: 100).rows.map(\.row.value) }
        XCTAssertEqual(after, Array(repeating: "second", count: 20), "the next read sees the commit")
    }

    func testTheKeysInConflictAreRead() throws {
        let world = try TestWorld()
        let paths = [world.path(), world.path()]
        let fleet = try world.fleet(2, namespaces: [NotebookNamespace.self], paths: paths)
        fleet.announceAll()
        let id = [UInt8](repeating: 7, count: 16)
        let other = [UInt8](repeating: 8, count: 16)
        func note(_ id: [UInt8], _ body: String, _ seconds: Double) -> Note {
            Note(id: id, title: "t", body: body, createdAt: Date(timeIntervalSince1970: 1_000), updatedAt: Date(timeIntervalSince1970: seconds))
        }
        try fleet.write(on: 0, NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(note(id, "base", 1_000))
            try tx.save(note(other, "calm", 1_000))
        }
        fleet.run(until: 5_000)
        fleet.partition([[0], [1]])
        try fleet.write(on: 0, NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note(id, "a", 2_000)) }
        try fleet.write(on: 1, NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note(id, "b", 2_000)) }
        fleet.heal()
        fleet.announceAll()
        fleet.run(until: 30_000)
        let connection = try StoreReadConnection(path: paths[1], namespaces: NamespaceSet([NotebookNamespace.self]))
        defer { connection.close() }
        let (conflicts, count) = try connection.read(NotebookNamespace.self) { reader throws(SyncKernelError) in
            (try reader.conflictKeys(), try reader.count())
        }
        XCTAssertEqual(conflicts, [id])
        XCTAssertEqual(count, 2)
    }

    func testRejectANamespaceOutsideTheSetOrWithoutATable() throws {
        let world = try TestWorld()
        let path = try storeOfRecords(world, count: 3)
        let connection = try reader(path)
        defer { connection.close() }
        XCTAssertThrowsError(try connection.read(NotebookNamespace.self) { reader throws(SyncKernelError) in try reader.count() }) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .unknownNamespace)
        }
        let wider = try StoreReadConnection(path: path, namespaces: NamespaceSet([RecordNamespace.self, NotebookNamespace.self]))
        defer { wider.close() }
        XCTAssertThrowsError(try wider.read(NotebookNamespace.self) { reader throws(SyncKernelError) in try reader.count() }) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .unknownNamespace, "the store never held the namespace")
        }
    }
}
