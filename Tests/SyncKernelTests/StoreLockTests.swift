import Foundation
@testable import SyncKernel
import XCTest

/// One writer per store: a store open for writing holds its file's lock, whichever path reaches
/// the file, and a full or read-only disk answers with its own code, rolls the write back whole
/// and leaves the store usable.
final class StoreLockTests: XCTestCase {
    private typealias Row = RecordNamespace.Row

    private func save(_ row: Row, _ store: KernelStore) throws {
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(row) }
    }

    /// Opens a second store on `path` and returns the error it was refused with.
    private func refusal(_ world: TestWorld, at path: String, file: StaticString = #filePath, line: UInt = #line) -> SyncKernelError? {
        do {
            let second = try world.store(path: path)
            second.close()
            XCTFail("a second writer on one store was accepted", file: file, line: line)
            return nil
        } catch let error as SyncKernelError {
            return error
        } catch {
            XCTFail("unexpected \(error)", file: file, line: line)
            return nil
        }
    }

    /// The bytes of the store's database and WAL files.
    private func bytes(_ path: String) -> [Data?] {
        [path, path + "-wal", path + "-lease"].map { FileManager.default.contents(atPath: $0) }
    }

    func testASecondWriterOnTheSamePathIsRefusedNamingThisProcessAndWritesNothing() throws {
        let world = try TestWorld()
        let path = world.path()
        let first = try world.store(path: path)
        try save(Row(id: "k", value: "v", updatedAt: 1), first)
        let before = bytes(path)
        let error = try XCTUnwrap(refusal(world, at: path))
        XCTAssertEqual(error.code, .storeInUse)
        XCTAssertEqual(error.detail, "held by process \(getpid())", "the holder's pid, from /proc/locks")
        XCTAssertEqual(bytes(path), before, "the refused open wrote nothing")
        try save(Row(id: "k2", value: "v", updatedAt: 2), first)
        first.close()
    }

    func testEveryPathToTheFileMeetsTheSameLock() throws {
        let world = try TestWorld()
        let path = world.path()
        let first = try world.store(path: path)
        let symbolic = world.directory + "/symbolic.sqlite"
        let hard = world.directory + "/hard.sqlite"
        let relative = world.directory + "/./" + (path as NSString).lastPathComponent
        try FileManager.default.createSymbolicLink(atPath: symbolic, withDestinationPath: path)
        try FileManager.default.linkItem(atPath: path, toPath: hard)
        for other in [symbolic, hard, relative] {
            XCTAssertEqual(refusal(world, at: other)?.code, .storeInUse, other)
        }
        first.close()
        let again = try world.store(path: symbolic)
        XCTAssertEqual(refusal(world, at: hard)?.code, .storeInUse, "the link's opener holds the lock now")
        again.close()
    }

    func testReadersWorkBesideTheWriterAndCloseReleasesTheLock() throws {
        let world = try TestWorld()
        let path = world.path()
        let first = try world.store(path: path)
        try save(Row(id: "k", value: "v", updatedAt: 1), first)
        let summary = try KernelStore.summary(storedAt: path)
        XCTAssertEqual(summary.namespaces.first?.items, 1, "a read-only summary reads beside the writer")
        first.close()
        first.close()
        let next = try world.store(path: path)
        XCTAssertEqual(try next.row(RecordNamespace.self, key: Array("k".utf8))?.value, "v")
        next.close()
    }

    func testAStoreReleasedWithoutCloseFreesItsFile() throws {
        let world = try TestWorld()
        let path = world.path()
        do {
            let dropped = try world.store(path: path)
            try save(Row(id: "k", value: "v", updatedAt: 1), dropped)
        }
        let next = try world.store(path: path)
        next.close()
    }

    func testReopeningThroughASymbolicLinkContinuesTheEpoch() throws {
        let world = try TestWorld()
        let path = world.path()
        let first = try world.store(path: path)
        try save(Row(id: "k", value: "v", updatedAt: 1), first)
        let epoch = first.deviceEpoch
        first.close()
        let symbolic = world.directory + "/symbolic.sqlite"
        try FileManager.default.createSymbolicLink(atPath: symbolic, withDestinationPath: path)
        let again = try world.store(path: symbolic)
        XCTAssertEqual(again.epochChanges, [], "a second path to the same file is not a copy")
        XCTAssertEqual(again.deviceEpoch, epoch)
        again.close()
    }

    func testAFullDiskRollsTheWriteBackWithItsOwnCodeAndWritesResumeOnceThereIsRoom() throws {
        let world = try TestWorld()
        let store = try world.store()
        try save(Row(id: "small", value: "v", updatedAt: 1), store)
        let root = store.stateDigest()
        let pages = try XCTUnwrap(store.db.statement("PRAGMA page_count").first { $0.int64(0) })
        try store.db.execute("PRAGMA max_page_count = \(pages)")
        let big = String(repeating: "x", count: 200_000)
        XCTAssertThrowsError(try save(Row(id: "big", value: big, updatedAt: 2), store)) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .storageFull)
        }
        XCTAssertNil(try store.row(RecordNamespace.self, key: Array("big".utf8)), "nothing of the write is stored")
        XCTAssertEqual(store.stateDigest(), root, "the structure did not move")
        try store.db.execute("PRAGMA max_page_count = 1073741823")
        try save(Row(id: "big", value: big, updatedAt: 2), store)
        XCTAssertEqual(try store.row(RecordNamespace.self, key: Array("big".utf8))?.value, big)
        store.close()
    }

    func testAReadOnlyFileAnswersWritesWithItsOwnCode() throws {
        let world = try TestWorld()
        let store = try world.store()
        try store.db.execute("PRAGMA query_only = 1")
        XCTAssertThrowsError(try save(Row(id: "k", value: "v", updatedAt: 1), store)) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .storeReadOnly)
        }
        try store.db.execute("PRAGMA query_only = 0")
        try save(Row(id: "k", value: "v", updatedAt: 1), store)
        store.close()
    }
}
