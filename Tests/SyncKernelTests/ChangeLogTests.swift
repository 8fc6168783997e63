import Foundation
import NotebookNamespace
import SyncKernel
import SyncKernelSimulator
import XCTest

/// The change log and the feed `NamespaceReader.changes` reads from it: every committed change
/// of a key in number order, once per key under its last number, with its origin and conflict
/// state; nothing of a rolled-back transaction; a store from before gets every row it holds; and a
/// mirror fed from it, crashing and resuming from its stored cursor, ends equal to the store.
final class ChangeLogTests: XCTestCase {
    private typealias Row = RecordNamespace.Row

    private func changes(_ path: String, after cursor: UInt64 = 0, limit: Int = 10_000) throws -> [RowChange<Row>] {
        let connection = try StoreReadConnection(path: path, namespaces: NamespaceSet([RecordNamespace.self]))
        defer { connection.close() }
        return try connection.read(RecordNamespace.self) { reader throws(SyncKernelError) in try reader.changes(after: cursor, limit: limit) }
    }

    func testLocalWritesAndDeletesAreEachKeysLastChangeInNumberOrder() throws {
        let world = try TestWorld()
        let path = world.path()
        let store = try world.store(path: path)
        defer { store.close() }
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for id in ["a", "b", "c"] { try tx.save(Row(id: id, value: "1", updatedAt: 1)) }
        }
        let first = try changes(path)
        XCTAssertEqual(first.map(\.key), ["a", "b", "c"].map { Array($0.utf8) })
        XCTAssertEqual(first.map(\.cursor), [1, 2, 3])
        XCTAssertTrue(first.allSatisfy { $0.origin == .local && !$0.inConflict })
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "a", value: "2", updatedAt: 2))
            try tx.delete(key: Array("b".utf8))
        }
        let all = try changes(path)
        XCTAssertEqual(all.map(\.key), ["c", "a", "b"].map { Array($0.utf8) }, "each key once, under its last change")
        XCTAssertEqual(all.map(\.row?.value), ["1", "2", nil], "a delete reads as no row")
        XCTAssertEqual(try changes(path, after: 3).map(\.key), ["a", "b"].map { Array($0.utf8) })
        XCTAssertEqual(try changes(path, after: 3, limit: 1).map(\.key), [Array("a".utf8)])
        XCTAssertEqual(try changes(path, after: all.last?.cursor ?? 0), [])
        struct Abandoned: Error {}
        XCTAssertThrowsError(try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "z", value: "never", updatedAt: 3))
            throw SyncKernelError(.limitExceeded, "abandoned")
        })
        XCTAssertEqual(try changes(path).map(\.cursor), all.map(\.cursor), "nothing of a rolled-back write")
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(Row(id: "d", value: "1", updatedAt: 4)) }
        XCTAssertGreaterThan(try changes(path).last?.cursor ?? 0, all.last?.cursor ?? 0, "numbers only grow")
    }

    func testMergedChangesNameTheirSiblingAndAConflictIsShown() throws {
        let world = try TestWorld()
        let paths = [world.path(), world.path()]
        let fleet = try world.fleet(2, namespaces: [NotebookNamespace.self], paths: paths)
        fleet.announceAll()
        let id = [UInt8](repeating: 7, count: 16)
        func note(_ body: String, _ seconds: Double) -> Note {
            Note(id: id, title: "t", body: body, createdAt: Date(timeIntervalSince1970: 1_000), updatedAt: Date(timeIntervalSince1970: seconds))
        }
        try fleet.write(on: 0, NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note("base", 1_000)) }
        fleet.run(until: 5_000)
        func feed(_ index: Int) throws -> [RowChange<Note>] {
            let connection = try StoreReadConnection(path: paths[index], namespaces: NamespaceSet([NotebookNamespace.self]))
            defer { connection.close() }
            return try connection.read(NotebookNamespace.self) { reader throws(SyncKernelError) in try reader.changes(after: 0, limit: 100) }
        }
        XCTAssertEqual(try feed(1).map(\.origin), [.sibling(TestWorld.device(0))])
        XCTAssertEqual(try feed(0).map(\.origin), [.local])
        fleet.partition([[0], [1]])
        try fleet.write(on: 0, NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note("a", 2_000)) }
        try fleet.write(on: 1, NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note("b", 2_000)) }
        fleet.heal()
        fleet.announceAll()
        fleet.run(until: 30_000)
        let after = try feed(1)
        XCTAssertEqual(after.count, 1)
        XCTAssertEqual(after.first?.inConflict, true, "the merge that opened the conflict is the key's last change")
        XCTAssertEqual(after.first?.origin, .sibling(TestWorld.device(0)))
    }

    func testAStoreFromBeforeTheChangeLogGetsEveryRowItHolds() throws {
        let world = try TestWorld()
        let path = world.path()
        let store = try world.store(path: path)
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<25 { try tx.save(Row(id: "r\(index)", value: "v", updatedAt: 1)) }
        }
        store.close()
        try SQLiteTestHelper.execute("DROP TABLE sk_change; DROP TABLE sk_change_head", at: path)
        XCTAssertEqual(try changes(path), [], "no log, no feed")
        let reopened = try world.store(path: path)
        defer { reopened.close() }
        let feed = try changes(path)
        XCTAssertEqual(Set(feed.map(\.key)), Set((0..<25).map { Array("r\($0)".utf8) }))
        XCTAssertEqual(feed.map(\.cursor), (1...25).map(UInt64.init))
        try reopened.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(Row(id: "new", value: "v", updatedAt: 2)) }
        XCTAssertEqual(try changes(path, after: 25).map(\.cursor), [26])
    }

    func testAMirrorFedFromTheFeedThatCrashesAndResumesEndsEqualToTheStore() throws {
        let world = try TestWorld()
        let paths = [world.path(), world.path()]
        let fleet = try world.fleet(2, paths: paths)
        fleet.announceAll()
        var random = SeededGenerator(seed: 23)
        var mirror: [[UInt8]: String] = [:]
        var savedMirror: [[UInt8]: String] = [:]
        var saved: UInt64 = 0
        var cursor: UInt64 = 0
        for step in 0..<60 {
            let device = Int.random(in: 0..<2, using: &random)
            try fleet.write(on: device, RecordNamespace.self) { tx throws(SyncKernelError) in
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let id = "k\(Int.random(in: 0..<12, using: &random))"
                    if Bool.random(using: &random), step > 5 {
                        try tx.delete(key: Array(id.utf8))
                    } else {
                        try tx.save(Row(id: id, value: "s\(step)d\(device)", updatedAt: Int64(step + 1)))
                    }
                }
            }
            fleet.run(until: fleet.now + Int64.random(in: 50...800, using: &random))
            // Device 1's mirror reads a page of random size, and now and then crashes, losing what
            // it applied since it last stored its cursor with its data.
            for change in try changes(paths[1], after: cursor, limit: Int.random(in: 1...6, using: &random)) {
                mirror[change.key] = change.row?.value
                cursor = change.cursor
            }
            if Bool.random(using: &random) {
                (savedMirror, saved) = (mirror, cursor)
            } else if Int.random(in: 0..<5, using: &random) == 0 {
                (mirror, cursor) = (savedMirror, saved)
            }
        }
        fleet.run(until: fleet.now + 60_000)
        XCTAssertTrue(fleet.allRootsMatch)
        while case let page = try changes(paths[1], after: cursor, limit: 5), !page.isEmpty {
            for change in page {
                mirror[change.key] = change.row?.value
                cursor = change.cursor
            }
        }
        let stored = try fleet.replicas[1].store.rows(RecordNamespace.self)
        XCTAssertFalse(mirror.isEmpty)
        XCTAssertEqual(mirror, Dictionary(uniqueKeysWithValues: stored.map { (Array($0.id.utf8), $0.value) }))
    }
}
