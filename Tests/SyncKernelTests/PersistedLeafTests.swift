import Foundation
import SyncKernel
import SyncKernelSimulator
import XCTest

/// Each row is stored beside its leaf hash: a store opens from the stored leaves without decoding
/// a row, a store made before the column existed gains its leaves once, and a damaged row no
/// longer stops the whole store from opening (it is found and quarantined when read).
final class PersistedLeafTests: XCTestCase {
    private func save(_ rows: [RecordNamespace.Row], _ store: KernelStore) throws {
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for row in rows { try tx.save(row) }
        }
    }

    /// A store file holding `rows`, closed, and its digest.
    private func savedAndClosed(in world: TestWorld) throws -> (path: String, digest: StateDigest) {
        let path = world.path()
        let store = try world.store(path: path)
        try save(rows, store)
        defer { store.close() }
        return (path, store.stateDigest())
    }

    private let rows = (0..<20).map { RecordNamespace.Row(id: "k\($0)", value: "v\($0)", updatedAt: Int64($0)) }

    func testAStoreFromBeforeTheLeafColumnGainsItsLeavesOnceAndKeepsItsDigest() throws {
        let world = try TestWorld()
        let (path, digest) = try savedAndClosed(in: world)
        try SQLiteTestHelper.execute("""
            CREATE TABLE old(key BLOB PRIMARY KEY, row BLOB NOT NULL) WITHOUT ROWID;
            INSERT INTO old SELECT key, row FROM ns_records;
            DROP TABLE ns_records;
            ALTER TABLE old RENAME TO ns_records;
            """, at: path)
        let upgraded = try world.store(path: path)
        XCTAssertEqual(upgraded.stateDigest(), digest)
        XCTAssertEqual(try upgraded.recomputedStateDigest(), digest)
        upgraded.close()
        try SQLiteTestHelper.execute("UPDATE ns_records SET row = x'00' WHERE key = CAST('k3' AS BLOB)", at: path)
        let reopened = try world.store(path: path)
        XCTAssertEqual(reopened.stateDigest(), digest, "the leaves were stored: opening decodes no row")
    }

    func testADamagedRowIsFoundWhenReadNotAtOpen() throws {
        let world = try TestWorld()
        let (path, digest) = try savedAndClosed(in: world)
        try SQLiteTestHelper.execute("UPDATE ns_records SET row = x'ff' WHERE key = CAST('k7' AS BLOB)", at: path)
        let store = try world.store(path: path)
        XCTAssertEqual(store.stateDigest(), digest, "opening decodes no row")
        XCTAssertEqual(store.quarantinedAtOpen, [])
        XCTAssertEqual(try store.row(RecordNamespace.self, key: Array("k6".utf8))?.value, "v6", "the other rows read")
        XCTAssertNil(try store.row(RecordNamespace.self, key: Array("k7".utf8)), "the damaged row is set aside, never a trap")
        XCTAssertEqual(try store.quarantinedRows().map { [$0.key: $0.reason] }, [[Array("k7".utf8): .undecodable]])
        XCTAssertNotEqual(store.stateDigest(), digest, "its item left the digest")
        XCTAssertEqual(try store.recomputedStateDigest(), store.stateDigest(), "the audit scan agrees with the structure")
    }

    func testALeafStoredBesideEveryWriteMatchesARebuild() throws {
        let world = try TestWorld()
        let path = world.path()
        var random = SeededGenerator(seed: 91)
        do {
            let store = try world.store(path: path)
            for step in 0..<60 {
                let id = "k\(random.next() % 25)"
                if random.chance(0.2) {
                    try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: Array(id.utf8)) }
                } else {
                    try save([RecordNamespace.Row(id: id, value: "v\(step)", updatedAt: Int64(step))], store)
                }
            }
            XCTAssertEqual(try store.recomputedStateDigest(), store.stateDigest(), "seed 91")
            store.close()
        }
        let reopened = try world.store(path: path)
        XCTAssertEqual(try reopened.recomputedStateDigest(), reopened.stateDigest(), "seed 91: the stored leaves are the rows' leaves")
    }
}
