import CSQLite
import Foundation
import SyncKernel
import SyncKernelSimulator
import XCTest

/// The persisted per-namespace structure: always the rows' own (after random writes, deletes and
/// rolled-back transactions, across reopening, for a store from before it existed), and
/// history-independent (equal leaf sets, equal roots, whatever order the writes came in).
final class NamespaceStructureTests: XCTestCase {
    private typealias Row = RecordNamespace.Row

    func testTheStructureEqualsARebuildAfterRandomWritesDeletesAndRollbacks() throws {
        for seed: UInt64 in [3, 17, 29] {
            let world = try TestWorld()
            let path = world.path()
            let store = try world.store(path: path)
            var random = SeededGenerator(seed: seed)
            for step in 0..<60 {
                let rollback = random.next() % 5 == 0
                let before = store.stateDigest()
                let outcome = Result { () throws -> WriteOutcome in
                    try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
                        for _ in 0..<(1 + random.next() % 20) {
                            let id = "k\(random.next() % 80)"
                            switch random.next() % 4 {
                            case 0: try tx.delete(key: Array(id.utf8))
                            case 1: try tx.save(Row(id: id, value: "v\(step)", updatedAt: Int64(step), observedBy: "d\(step)"))
                            default: try tx.save(Row(id: id, value: "v\(random.next() % 3)", updatedAt: Int64(step)))
                            }
                        }
                        if rollback { throw SyncKernelError(.storeClosed, "rolled back on purpose") }
                    }
                }
                if rollback {
                    XCTAssertThrowsError(try outcome.get())
                    XCTAssertEqual(store.stateDigest(), before, "seed \(seed) step \(step): a rollback leaves no trace")
                }
                XCTAssertNoThrow(try store.verifyStructures(), "seed \(seed) step \(step)")
            }
            let digest = store.stateDigest()
            let counters = store.changeCounters()
            store.close()
            let reopened = try world.store(path: path)
            XCTAssertEqual(reopened.stateDigest(), digest, "seed \(seed)")
            XCTAssertEqual(reopened.changeCounters(), counters, "seed \(seed): the change counter is persisted")
            XCTAssertEqual(try reopened.recomputedStateDigest(), digest, "seed \(seed)")
            XCTAssertNoThrow(try reopened.verifyStructures(), "seed \(seed)")
        }
    }

    func testEqualLeafSetsGiveEqualRootsWhateverTheWriteOrder() throws {
        let world = try TestWorld()
        let rows = (0..<200).map { Row(id: "row-\($0)", value: "v\($0 % 7)", updatedAt: 1) }
        let first = try world.store(device: 0)
        let second = try world.store(device: 0)
        try first.write(RecordNamespace.self) { tx throws(SyncKernelError) in for row in rows { try tx.save(row) } }
        try second.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for row in rows.reversed() { try tx.save(Row(id: row.id, value: "other", updatedAt: 0)) }
            try tx.save(Row(id: "extra", value: "x", updatedAt: 1))
        }
        var shuffler = SeededGenerator(seed: 5)
        let shuffled = rows.shuffled(using: &shuffler)
        try second.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.delete(key: Array("extra".utf8))
            for row in shuffled { try tx.save(row) }
        }
        XCTAssertEqual(first.stateDigest(), second.stateDigest())
        XCTAssertNotEqual(first.changeCounters(), second.changeCounters(), "only the counters remember the history")

        let root = first.stateDigest()
        let outcome = try first.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "row-3", value: "v3", updatedAt: 1, observedBy: "this device"))
        }
        XCTAssertEqual(outcome.changedNamespaces, [], "an excluded field moves no leaf")
        XCTAssertEqual(first.stateDigest(), root, "the root stays while the leaf set stays")
        try first.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(Row(id: "row-3", value: "new", updatedAt: 2)) }
        XCTAssertNotEqual(first.stateDigest(), root, "the root moves when a leaf moves")
    }

    func testAStoreFromBeforeTheStructureGainsItOnceAtOpen() throws {
        let world = try TestWorld()
        let path = world.path()
        let store = try world.store(path: path)
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<50 { try tx.save(Row(id: "r\(index)", value: "v", updatedAt: 1)) }
        }
        let digest = store.stateDigest()
        store.close()
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        XCTAssertEqual(sqlite3_exec(db, "DELETE FROM sk_structure; DELETE FROM sk_symbol; DELETE FROM sk_bucket;", nil, nil, nil), SQLITE_OK)
        sqlite3_close(db)
        let upgraded = try world.store(path: path)
        XCTAssertEqual(upgraded.stateDigest(), digest)
        XCTAssertNoThrow(try upgraded.verifyStructures())
        XCTAssertGreaterThan(try upgraded.structureBytes(namespace: RecordNamespace.name), 0, "built and persisted")
    }

    /// A structure persisted by the build of 64-bit sketch items (format 1: symbols with 8-byte
    /// tag sums) is rebuilt once at open from the stored leaves: afterwards its header says
    /// the current format (3, with the wide tier), every symbol and bucket is byte for byte what the writes had kept, a symbol row
    /// the new sketch does not have is gone, the change counter survives, and the persisted and
    /// in-memory structures equal a from-scratch build over the decoded rows.
    func testAStructureOfTheEarlierFormatIsRebuiltAtOpenAndEqualsAFromScratchBuild() throws {
        let world = try TestWorld()
        let path = world.path()
        let store = try world.store(path: path)
        var random = SeededGenerator(seed: 41)
        for step in 0..<6 {
            try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
                for _ in 0..<80 {
                    let id = "k\(random.next() % 300)"
                    if random.next() % 5 == 0 {
                        try tx.delete(key: Array(id.utf8))
                    } else {
                        try tx.save(Row(id: id, value: "v\(step)-\(random.next() % 4)", updatedAt: Int64(step)))
                    }
                }
            }
        }
        let digest = store.stateDigest()
        let counters = store.changeCounters()
        store.close()
        let kept = try Self.structureTables(at: path)
        XCTAssertEqual(try SQLiteTestHelper.integer("SELECT format FROM sk_structure", at: path), KernelStore.structureFormat)
        try SQLiteTestHelper.execute("""
            UPDATE sk_structure SET format = 1;
            UPDATE sk_symbol SET symbol = substr(symbol, 1, length(symbol) - 4) || x'deadbeef' || substr(symbol, length(symbol) - 3);
            INSERT OR REPLACE INTO sk_symbol(ns, idx, symbol) VALUES('\(RecordNamespace.name)', 4095, x'0201ffdeadbeef00000007');
            """, at: path)
        XCTAssertNotEqual(try Self.structureTables(at: path), kept, "the file now holds the earlier format")

        let reopened = try world.store(path: path)
        XCTAssertEqual(try SQLiteTestHelper.integer("SELECT format FROM sk_structure", at: path), KernelStore.structureFormat,
                       "rebuilt in the new format")
        XCTAssertEqual(try Self.structureTables(at: path), kept, "equal to the structure the writes kept")
        XCTAssertEqual(reopened.stateDigest(), digest)
        XCTAssertEqual(reopened.changeCounters(), counters, "the change counter survives the rebuild")
        XCTAssertNoThrow(try reopened.verifyStructures(), "persisted and in-memory structures equal a from-scratch build")
        reopened.close()
        let again = try world.store(path: path)
        XCTAssertEqual(try Self.structureTables(at: path), kept, "opened once more, it reads the same")
        XCTAssertNoThrow(try again.verifyStructures())
    }

    /// The persisted structure's rows (symbols and buckets, hex, in index order).
    private static func structureTables(at path: String) throws -> [String] {
        try FalsePeelTests.tableDump(at: path).filter { $0.hasPrefix("sk_symbol:") || $0.hasPrefix("sk_bucket:") }
    }

    func testADamagedPersistedSymbolIsRebuiltFromTheStoredLeavesAtOpen() throws {
        let world = try TestWorld()
        let path = world.path()
        let store = try world.store(path: path)
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(Row(id: "r", value: "v", updatedAt: 1)) }
        let digest = store.stateDigest()
        store.close()
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        XCTAssertEqual(sqlite3_exec(db, "UPDATE sk_symbol SET symbol = x'ff00' WHERE idx = 0", nil, nil, nil), SQLITE_OK)
        sqlite3_close(db)
        let reopened = try world.store(path: path)
        XCTAssertEqual(reopened.stateDigest(), digest, "the structure is derived from the leaves: rebuilt, not fatal")
        XCTAssertNoThrow(try reopened.verifyStructures())
    }

    func testRejectSavingAKeyLongerThanTheSketchCarries() throws {
        let world = try TestWorld()
        let store = try world.store()
        let long = String(repeating: "k", count: SketchItem.maxKeyBytes + 1)
        XCTAssertThrowsError(try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: long, value: "v", updatedAt: 1))
        }) { XCTAssertEqual(($0 as? SyncKernelError)?.code, .rowRejected) }
        XCTAssertEqual(try store.rows(RecordNamespace.self), [])
    }

    func testTheStructureStaysAConstantSizeAndMemoryNeverHoldsTheLeaves() throws {
        let world = try TestWorld()
        let store = try world.store()
        var sizes: [Int] = []
        for batch in 0..<4 {
            try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
                for index in 0..<2_500 { try tx.save(Row(id: "r\(batch)-\(index)", value: "v", updatedAt: 1)) }
            }
            sizes.append(try store.structureBytes(namespace: RecordNamespace.name))
        }
        // The wide tier fills as items arrive (about 8 of its symbols an item) until its 262,144
        // symbols are all in use; it never passes its capacity, and each batch adds less.
        let bound = 2 * SetHash.byteCount + RatelessSketch.standardCapacity * 40 + PrefixNode.bucketCount * 40
            + WideSketch.capacity * 30 + KernelStore.structureJournalLimit * 40
        XCTAssertTrue(sizes.allSatisfy { $0 < bound }, "\(sizes) against \(bound)")
        XCTAssertLessThanOrEqual(sizes[3] - sizes[2], sizes[1] - sizes[0], "\(sizes): the structure fills toward a constant")
    }
}
