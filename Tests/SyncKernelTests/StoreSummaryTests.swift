import CSQLite
import Foundation
import SyncKernel
import XCTest

/// `KernelStore.summary()` and `summary(storedAt:)`: what `synckernel status` shows of a store.
final class StoreSummaryTests: XCTestCase {
    private func record(_ index: Int) -> RecordNamespace.Row {
        RecordNamespace.Row(id: "r\(index)", value: "v\(index)", updatedAt: Int64(index))
    }

    private func files(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    func testTheSummaryDependsOnTheItemsOnlyAndTheFileAgreesWithTheOpenStore() throws {
        let world = try TestWorld()
        let one = try world.store([RecordNamespace.self, StormyNamespace.self], device: 0)
        let other = try world.store([RecordNamespace.self, StormyNamespace.self], device: 1)
        try one.write(RecordNamespace.self) { tx throws(SyncKernelError) in for index in 0..<20 { try tx.save(record(index)) } }
        for index in (0..<20).reversed() {
            try other.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(record(index)) }
        }
        let live = one.summary()
        XCTAssertEqual(live.device, TestWorld.device(0))
        XCTAssertEqual(live.namespaces.map(\.name), ["records", "stormy"], "sorted by name")
        XCTAssertEqual(live.namespaces.map(\.items), [20, 0])
        XCTAssertEqual(live.namespaces.map(\.openConflicts), [0, 0], "no key holds two live versions")
        XCTAssertEqual(live.namespaces[1].root, [UInt8](repeating: 0, count: 32), "an empty namespace has the empty root")
        XCTAssertNotEqual(live.namespaces[0].root, [UInt8](repeating: 0, count: 32))
        XCTAssertEqual(live.namespaces, other.summary().namespaces, "the same items in another order and other transactions")
        XCTAssertEqual(Array(live.namespaces[0].root.prefix(StateDigest.setHashRootBytes)), one.stateDigest().roots[0],
                       "the digest advertises the first bytes of the root")

        let paths = [world.directory + "/store-1.sqlite", world.directory + "/store-2.sqlite"]
        XCTAssertEqual(try KernelStore.summary(storedAt: paths[0]), live, "read from the file while the store is open")
        try one.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(record(99)) }
        XCTAssertEqual(try KernelStore.summary(storedAt: paths[0]), one.summary(), "a later commit is seen")
        one.close()
        other.close()
        XCTAssertEqual(try KernelStore.summary(storedAt: paths[1]).device, TestWorld.device(1))
    }

    func testTheSummaryIsReadBesideAWriterThatTruncatedItsWALAndWritesNothing() throws {
        let world = try TestWorld()
        let path = world.path()
        let writer = try world.store(device: 0, path: path)
        try writer.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(record(1)) }
        try writer.checkpoint()
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: path + "-wal"))[.size] as? Int, 0, "an empty WAL, the writer open")
        XCTAssertEqual(try KernelStore.summary(storedAt: path).namespaces.first?.items, 1)
        try writer.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(record(2)) }
        XCTAssertEqual(try KernelStore.summary(storedAt: path).namespaces.first?.items, 2, "read as a WAL reader, not as an immutable file")
        writer.close()

        let before = try files(in: world.directory)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(try KernelStore.summary(storedAt: path).namespaces.first?.items, 2)
        XCTAssertEqual(try files(in: world.directory), before, "no file created (no lease, no -wal, no -shm)")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes, "nothing written")
    }

    func testRejectAFileThatIsNotAStore() throws {
        let world = try TestWorld()
        let cases: [(String, Data?, SyncKernelError.Code)] = [
            ("missing", nil, .notAStore),
            ("empty", Data(), .notAStore),
            ("text", Data(String(repeating: "not a database ", count: 400).utf8), .notAStore),
        ]
        for (name, contents, code) in cases {
            let path = world.path(name)
            if let contents { XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: contents)) }
            XCTAssertThrowsError(try KernelStore.summary(storedAt: path), name) { XCTAssertEqual(($0 as? SyncKernelError)?.code, code, name) }
            XCTAssertEqual(FileManager.default.fileExists(atPath: path), contents != nil, "\(name): nothing created")
        }
        let foreign = world.path("foreign")
        var handle: OpaquePointer?
        XCTAssertEqual(sqlite3_open(foreign, &handle), SQLITE_OK)
        XCTAssertEqual(sqlite3_exec(handle, "PRAGMA application_id = 7; CREATE TABLE t(a)", nil, nil, nil), SQLITE_OK)
        sqlite3_close(handle)
        XCTAssertThrowsError(try KernelStore.summary(storedAt: foreign)) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .foreignDatabase)
        }
    }
}
