import Foundation
import NotebookNamespace
import CSQLite
import SyncKernel
import SyncKernelSimulator
import XCTest

/// `StructureComparison`, what `synckernel diff` compares a namespace both stores hold with:
/// every class of difference it finds through the persisted structures is exactly what comparing
/// every key finds, and a structure that cannot be used falls back to that comparison.
final class StructureComparisonTests: XCTestCase {
    /// Store A with `count` seeded records, closed, and B a copy of its file; their paths.
    private func copiedPair(_ world: TestWorld, count: Int, seed: UInt64) throws -> (a: String, b: String) {
        var random = SeededGenerator(seed: seed)
        let (a, b) = (world.path("a"), world.path("b"))
        let store = try world.store(device: 0, path: a)
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<count {
                try tx.save(RecordNamespace.Row(id: "r\(index)-\(random.next())", value: "v\(random.next())", updatedAt: 10))
            }
        }
        try store.checkpoint()
        store.close()
        try FileManager.default.copyItem(atPath: a, toPath: b)
        return (a, b)
    }

    /// Opens the store at `path` as device `device`, runs `body` in one records transaction,
    /// checkpoints and closes it.
    private func edit(_ world: TestWorld, _ path: String, device: Int,
                      _ body: (NamespaceTransaction<RecordNamespace>) throws(SyncKernelError) -> Void) throws {
        let store = try world.store(device: device, path: path)
        try store.write(RecordNamespace.self, body)
        try store.checkpoint()
        store.close()
    }

    /// Runs `sql` on the file at `path` outside the kernel (damage an earlier build or a bad disk leaves).
    private func damage(_ path: String, _ sql: String) {
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        XCTAssertEqual(sqlite3_exec(db, sql, nil, nil, nil), SQLITE_OK, sql)
        sqlite3_close(db)
    }

    /// Saves one new record `id` in the store at `path` as device `device`.
    private func add(_ world: TestWorld, _ id: String, at path: String, device: Int) throws {
        try edit(world, path, device: device) { tx throws(SyncKernelError) in
            try tx.save(RecordNamespace.Row(id: id, value: "new", updatedAt: 20))
        }
    }

    /// The ids of the records stored at `path`, in key order.
    private func ids(_ path: String) throws -> [String] {
        let reader = try StoreReader(path: path)
        defer { reader.close() }
        return try reader.keys(namespace: RecordNamespace.name).map { String(decoding: $0.key, as: UTF8.self) }
    }

    /// Compares `namespace` at `a` and `b` through the structures and by every key; asserts
    /// both list the same keys with the same entries, and returns the structure's comparison.
    private func compared(_ a: String, _ b: String, namespace: String = RecordNamespace.name,
                          file: StaticString = #filePath, line: UInt = #line) throws -> StructureComparison {
        let (left, right) = (try StoreReader(path: a), try StoreReader(path: b))
        defer {
            left.close()
            right.close()
        }
        let found = try StructureComparison.compare(left, right, namespace: namespace)
        let every = KeyDifference.listing(try left.keys(namespace: namespace), try right.keys(namespace: namespace))
        XCTAssertEqual(found.keys.map(\.key), every.map(\.key), "the keys of comparing every key", file: file, line: line)
        for (mine, theirs) in zip(found.keys, every) {
            XCTAssertEqual([mine.a?.item, mine.b?.item], [theirs.a?.item, theirs.b?.item], file: file, line: line)
            XCTAssertEqual([mine.a?.row, mine.b?.row], [theirs.a?.row, theirs.b?.row], file: file, line: line)
            XCTAssertEqual([mine.a?.versions.count, mine.b?.versions.count], [theirs.a?.versions.count, theirs.b?.versions.count],
                           file: file, line: line)
        }
        return found
    }

    func testEqualStoresCompareByTheirRootsAlone() throws {
        let world = try TestWorld()
        let (a, b) = try copiedPair(world, count: 200, seed: 1)
        let found = try compared(a, b)
        XCTAssertEqual(found.route, .equalRoots)
        XCTAssertTrue(found.keys.isEmpty)
    }

    func testALeafThatDiffersAndAKeyEitherSideLacksAreFoundThroughTheSketch() throws {
        let world = try TestWorld()
        let (a, b) = try copiedPair(world, count: 300, seed: 2)
        let held = try ids(a)
        try edit(world, b, device: 1) { tx throws(SyncKernelError) in
            try tx.save(RecordNamespace.Row(id: held[3], value: "edited on B", updatedAt: 20))
            try tx.delete(key: Array(held[7].utf8))
            try tx.save(RecordNamespace.Row(id: "only on B", value: "new", updatedAt: 20))
        }
        try add(world, "only on A", at: a, device: 0)
        let found = try compared(a, b)
        XCTAssertEqual(found.route, .sketch)
        XCTAssertEqual(Set(found.keys.map { String(decoding: $0.key, as: UTF8.self) }), [held[3], held[7], "only on A", "only on B"])
        let deleted = try XCTUnwrap(found.keys.first { $0.key == Array(held[7].utf8) })
        XCTAssertNotNil(deleted.a?.row)
        XCTAssertNil(deleted.b?.row, "B deleted it: no row, a tombstone at most")
    }

    func testAConflictOnlyOneSideStillKeepsIsFoundThroughTheSketch() throws {
        let world = try TestWorld()
        let noteID = [UInt8](repeating: 7, count: 16)
        let (a, b) = try world.conflictedNotebooks(noteID: noteID, first: "milk", edits: ("milk, eggs", "milk, bread"))
        XCTAssertEqual(try compared(a, b, namespace: NotebookNamespace.name).route, .equalRoots)
        let store = try world.store([NotebookNamespace.self], device: 0, path: a)
        try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            let held = try tx.versions(forKey: noteID)
            try tx.resolve(held[0].row, over: held)
        }
        try store.checkpoint()
        store.close()
        let found = try compared(a, b, namespace: NotebookNamespace.name)
        XCTAssertEqual(found.route, .sketch)
        XCTAssertEqual(found.keys.map(\.key), [noteID])
        XCTAssertEqual(found.keys.first?.a?.leaf, found.keys.first?.b?.leaf, "the same content: only the conflict differs")
    }

    func testADifferenceTooLargeForTheSketchFallsBackToTheBucketsAndStaysExact() throws {
        let world = try TestWorld()
        let (a, b) = try copiedPair(world, count: 100, seed: 3)
        let held = try ids(a)
        var random = SeededGenerator(seed: 4)
        try edit(world, b, device: 1) { tx throws(SyncKernelError) in
            for index in 0..<3_600 { try tx.save(RecordNamespace.Row(id: "b\(index)-\(random.next())", value: "x", updatedAt: 20)) }
            try tx.save(RecordNamespace.Row(id: held[5], value: "edited on B", updatedAt: 20))
        }
        let found = try compared(a, b)
        XCTAssertEqual(found.route, .buckets, "3,601 differing items do not decode from 4,096 symbols")
        XCTAssertEqual(found.keys.count, 3_601)
    }

    func testASketchThatDisagreesWithItsRowsIsCaughtAndTheResultStaysExact() throws {
        let world = try TestWorld()
        let (a, b) = try copiedPair(world, count: 300, seed: 5)
        try add(world, "only on B", at: b, device: 1)
        damage(b, "DELETE FROM sk_symbol")
        let found = try compared(a, b)
        XCTAssertEqual(found.route, .buckets, "the decoded keys do not account for the set hashes")
        XCTAssertEqual(found.keys.map(\.key), [Array("only on B".utf8)])
    }

    func testAMissingStructureFallsBackToComparingEveryKey() throws {
        let world = try TestWorld()
        let (a, b) = try copiedPair(world, count: 50, seed: 6)
        damage(b, "DELETE FROM sk_structure")
        XCTAssertEqual(try compared(a, b).route, .everyKey, "no structure: no claim of equality from it")
        try add(world, "only on A", at: a, device: 0)
        damage(a, "UPDATE sk_structure SET format = 1")
        let found = try compared(a, b)
        XCTAssertEqual(found.route, .everyKey, "a structure of another format is not read")
        XCTAssertEqual(found.keys.map(\.key), [Array("only on A".utf8)])
    }

    func testComparesBesideAStoreOpenForWritingAndWritesNothing() throws {
        let world = try TestWorld()
        let (a, b) = try copiedPair(world, count: 100, seed: 7)
        let running = try world.store(device: 1, path: b)
        try running.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(RecordNamespace.Row(id: "written while open", value: "new", updatedAt: 20))
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: a))
        let found = try compared(a, b)
        XCTAssertEqual(found.route, .sketch)
        XCTAssertEqual(found.keys.map(\.key), [Array("written while open".utf8)], "the committed write is seen")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: a)), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: a + "-wal"), "A was opened read-only: no journal appeared")
        running.close()
    }
}
