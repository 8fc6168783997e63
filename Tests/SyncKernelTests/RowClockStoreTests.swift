import CSQLite
import SyncKernel
import SyncKernelSimulator
import XCTest

final class RowClockStoreTests: XCTestCase {
    private typealias Row = RecordNamespace.Row
    private let a = TestWorld.device(0)
    private let b = TestWorld.device(1)

    private func save(_ row: Row, _ store: KernelStore) throws {
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(row) }
    }

    /// The creation dimension of `row` (its first save on any device).
    private func created(_ row: Row) -> DeviceID {
        DeviceID.creation(key: Array(row.id.utf8), leaf: RecordNamespace.leaf(of: row).hash)
    }

    private func vector(_ store: KernelStore, _ id: String) throws -> VersionVector? {
        try store.version(namespace: RecordNamespace.name, key: Array(id.utf8))?.vector
    }

    private func pull(_ puller: KernelStore, from responder: KernelStore) throws -> ApplyOutcome? {
        let request = try puller.reconcileRequest(for: RecordNamespace.name)
        var outcome: ApplyOutcome?
        for response in try responder.respond(to: request) {
            let applied = try puller.apply(response)
            outcome = outcome.map { $0.combined(with: applied) } ?? applied
        }
        return outcome
    }

    func testRowClockBumpsOnAChangedStampEvenWhenTheClockRunsBackwards() throws {
        let world = try TestWorld()
        let store = try world.store(device: 0)
        let original = Row(id: "n", value: "v1", updatedAt: 100)
        try save(original, store)
        XCTAssertEqual(try vector(store, "n"), VersionVector([created(original): 1]), "a creation is counted by what it created")
        try save(Row(id: "n", value: "v1", updatedAt: 100, observedBy: "x"), store)
        XCTAssertEqual(try vector(store, "n"), VersionVector([created(original): 1]), "same stamp: no bump")
        try save(Row(id: "n", value: "v2", updatedAt: 50), store)
        XCTAssertEqual(try vector(store, "n"), VersionVector([created(original): 1, a: 1]), "an earlier stamp is still a change")
        XCTAssertEqual(try store.version(namespace: RecordNamespace.name, key: Array("n".utf8))?.syncedAt, 50)
    }

    func testAdoptedRowsAreNotRebumpedAndVectorsMergeOnApply() throws {
        let world = try TestWorld()
        let first = try world.store(device: 0)
        let second = try world.store(device: 1)
        let original = Row(id: "n", value: "v1", updatedAt: 100)
        try save(original, first)
        let outcome = try XCTUnwrap(try pull(second, from: first))
        XCTAssertEqual(outcome.rowsApplied, 1)
        XCTAssertTrue(outcome.digestChanged)
        XCTAssertEqual(try vector(second, "n"), VersionVector([created(original): 1]))
        let adopted = try XCTUnwrap(try second.row(RecordNamespace.self, key: Array("n".utf8)))
        try save(adopted, second)
        XCTAssertEqual(try vector(second, "n"), VersionVector([created(original): 1]), "re-saving an adopted row is not an edit")
        XCTAssertNil(try pull(second, from: first), "equal content: the responder stays silent")
    }

    func testRowsWithoutBookkeepingRegisterWithAnEmptyVectorThatEveryHistoryDominates() throws {
        let world = try TestWorld()
        let path = world.path()
        let donor = try world.store(device: 0, path: path)
        try save(Row(id: "x", value: "old", updatedAt: 5), donor)
        try donor.checkpoint()
        donor.close()
        try SQLiteTestHelper.execute("UPDATE ns_\(RecordNamespace.name) SET vector = NULL, synced_at = NULL, content_vector = NULL",
                                     at: path)
        let restored = try world.store(device: 1, path: path)
        XCTAssertEqual(try vector(restored, "x"), VersionVector(), "first sight: empty vector")
        let fleet = try world.store(device: 2)
        try save(Row(id: "x", value: "fleet", updatedAt: 4), fleet)
        _ = try pull(restored, from: fleet)
        XCTAssertEqual(try restored.row(RecordNamespace.self, key: Array("x".utf8))?.value, "fleet",
                       "a restored device cannot out-version the fleet")
    }

    func testVersionsKeptInTheOlderSeparateTableMoveIntoTheRowTableOnOpen() throws {
        let world = try TestWorld()
        let path = world.path()
        let donor = try world.store(device: 0, path: path)
        try save(Row(id: "x", value: "one", updatedAt: 5), donor)
        try save(Row(id: "y", value: "two", updatedAt: 6), donor)
        let before = try ["x", "y"].map { try XCTUnwrap(try donor.version(namespace: RecordNamespace.name, key: Array($0.utf8))) }
        try donor.checkpoint()
        donor.close()
        let table = "ns_\(RecordNamespace.name)"
        try SQLiteTestHelper.execute("""
            CREATE TABLE sk_row_version(ns TEXT NOT NULL, key BLOB NOT NULL, vector BLOB NOT NULL, synced_at INTEGER NOT NULL,
                content_vector BLOB NOT NULL, PRIMARY KEY(ns, key)) WITHOUT ROWID;
            INSERT INTO sk_row_version SELECT '\(RecordNamespace.name)', key, vector, synced_at, content_vector FROM \(table);
            UPDATE \(table) SET vector = NULL, synced_at = NULL, content_vector = NULL;
            """, at: path)
        let reopened = try world.store(device: 0, path: path)
        let after = try ["x", "y"].map { try reopened.version(namespace: RecordNamespace.name, key: Array($0.utf8)) }
        XCTAssertEqual(after, before, "each row gets back the RowVersion the older table kept, not an empty one")
        reopened.close()
        let leftover = try SQLiteTestHelper.integer("SELECT COUNT(*) FROM sqlite_master WHERE name = 'sk_row_version'", at: path)
        XCTAssertEqual(leftover, 0, "the emptied older table is dropped")
    }

    func testDeleteLeavesATombstoneThatBeatsAStaleRowButNotAConcurrentEdit() throws {
        let world = try TestWorld()
        let first = try world.store(device: 0)
        let second = try world.store(device: 1)
        let doomed = Row(id: "d", value: "v", updatedAt: 1)
        try save(doomed, first)
        _ = try pull(second, from: first)
        try first.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: Array("d".utf8)) }
        XCTAssertEqual(try first.tombstones(namespace: RecordNamespace.name).first?.vector, VersionVector([created(doomed): 1, a: 1]))
        _ = try pull(first, from: second)
        XCTAssertNil(try first.row(RecordNamespace.self, key: Array("d".utf8)), "the stale row does not come back")
        _ = try pull(second, from: first)
        XCTAssertNil(try second.row(RecordNamespace.self, key: Array("d".utf8)), "the delete travels")
        XCTAssertEqual(first.stateDigest(), second.stateDigest())

        try save(Row(id: "e", value: "v", updatedAt: 1), first)
        _ = try pull(second, from: first)
        try first.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: Array("e".utf8)) }
        try save(Row(id: "e", value: "edited", updatedAt: 2), second)
        _ = try pull(first, from: second)
        _ = try pull(second, from: first)
        XCTAssertEqual(try first.row(RecordNamespace.self, key: Array("e".utf8))?.value, "edited", "add wins")
        XCTAssertEqual(first.stateDigest(), second.stateDigest())
    }

    func testApplyIsOneTransactionAMalformedRowWritesNothing() throws {
        let world = try TestWorld()
        let store = try world.store(device: 0)
        let before = store.stateDigest()
        let good = ShippedRow(row: RecordNamespace.rowEncoding(of: Row(id: "g", value: "ok", updatedAt: 1)),
                              vector: VersionVector([b: 1]))
        let bad = ShippedRow(row: [0x82, 0x01, 0x02], vector: VersionVector([b: 1]))
        XCTAssertThrowsError(try store.apply(ReconcileResponse(namespace: RecordNamespace.name, rows: [good, bad], tombstones: [])))
        XCTAssertEqual(try store.rows(RecordNamespace.self), [])
        XCTAssertEqual(store.stateDigest(), before)
        XCTAssertNil(try store.version(namespace: RecordNamespace.name, key: Array("g".utf8)))
        XCTAssertThrowsError(try store.apply(ReconcileResponse(namespace: "nope", rows: [good], tombstones: []))) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .unknownNamespace)
        }
    }

    func testAFailedLocalWriteLeavesNoTraceAndAReopenedStoreHasEveryCommittedRow() throws {
        let world = try TestWorld()
        let path = world.path()
        let store = try world.store(device: 0, path: path)
        try save(Row(id: "kept", value: "1", updatedAt: 1), store)
        let committed = store.stateDigest()
        XCTAssertThrowsError(try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "lost", value: "2", updatedAt: 2))
            throw SyncKernelError(.namespaceRefused, "test abort")
        })
        XCTAssertEqual(store.stateDigest(), committed)
        store.close()
        let reopened = try world.store(device: 0, path: path)
        XCTAssertEqual(try reopened.rows(RecordNamespace.self).map(\.id), ["kept"])
        XCTAssertEqual(reopened.stateDigest(), committed)
    }

    func testNonCausalNamespacesRefuseTombstoneDeletes() throws {
        let world = try TestWorld()
        let store = try world.store([StormyNamespace.self])
        try store.write(StormyNamespace.self) { tx throws(SyncKernelError) in try tx.save(.init(id: "s", seenOnDevice: "d")) }
        XCTAssertThrowsError(try store.write(StormyNamespace.self) { tx throws(SyncKernelError) in
            try tx.delete(key: Array("s".utf8))
        }) { XCTAssertEqual(($0 as? SyncKernelError)?.code, .operationNotSupportedByRule) }
    }
}

extension RowClockStoreTests {
    func testMaintainedLeavesAlwaysEqualAFullRescanOfTheRows() throws {
        let world = try TestWorld()
        let first = try world.store(device: 0)
        let second = try world.store(device: 1)
        var random = SeededGenerator(seed: 77)
        for step in 0..<300 {
            let store = random.chance(0.5) ? first : second
            let id = "k\(random.next() % 60)"
            if random.chance(0.2) {
                try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: Array(id.utf8)) }
            } else {
                try save(Row(id: id, value: "v\(random.next() % 5)", updatedAt: Int64(step)), store)
            }
            if step % 25 == 0 {
                _ = try pull(first, from: second)
                _ = try pull(second, from: first)
            }
            XCTAssertEqual(try store.recomputedStateDigest().encoded(), store.encodedStateDigest(),
                           "seed 77, step \(step): the cached digest follows every committed write and apply")
        }
        for store in [first, second] {
            XCTAssertEqual(try store.recomputedStateDigest(), store.stateDigest(), "seed 77")
        }
    }
}

/// Raw SQL against a closed store file, to model damage a test needs (never used by the library).
enum SQLiteTestHelper {
    struct Failure: Error {
        let status: Int32
    }

    static func execute(_ sql: String, at path: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open(path, &handle) == SQLITE_OK else { throw Failure(status: -1) }
        defer { sqlite3_close(handle) }
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw Failure(status: status) }
    }

    /// The integer in the first column of the first row `sql` returns.
    static func integer(_ sql: String, at path: String) throws -> Int64 {
        var handle: OpaquePointer?
        guard sqlite3_open(path, &handle) == SQLITE_OK else { throw Failure(status: -1) }
        defer { sqlite3_close(handle) }
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK else { throw Failure(status: prepared) }
        let stepped = sqlite3_step(statement)
        guard stepped == SQLITE_ROW else { throw Failure(status: stepped) }
        return sqlite3_column_int64(statement, 0)
    }
}

extension RowClockStoreTests {
    /// A save compares against the latest leaf its transaction staged for the key (RowClock bumps
    /// on a changed leaf under an unchanged stamp, so each bump below shows which leaf it saw),
    /// and a rolled-back write stages nothing the index or a later transaction could see.
    func testASaveSeesTheLatestStagedLeafOfItsKeyAndARolledBackWriteStagesNothing() throws {
        let world = try TestWorld()
        let store = try world.store(device: 0)
        let first = Row(id: "k", value: "A", updatedAt: 1)
        let second = Row(id: "k", value: "B", updatedAt: 1)
        let other = Row(id: "j", value: "J", updatedAt: 1)
        try save(first, store)
        XCTAssertEqual(try vector(store, "k"), VersionVector([created(first): 1]))
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(second)
            try tx.save(first)
            try tx.save(second)
            try tx.save(other)
            try tx.save(first)
        }
        XCTAssertEqual(try vector(store, "k"), VersionVector([created(first): 1, a: 4]),
                       "every save saw the leaf staged just before it: the committed or first staged leaf would miss a bump")
        XCTAssertEqual(try store.leaves(namespace: RecordNamespace.name),
                       [RecordNamespace.leaf(of: other), RecordNamespace.leaf(of: first)])
        XCTAssertEqual(try store.recomputedStateDigest(), store.stateDigest())

        let committedLeaves = try store.leaves(namespace: RecordNamespace.name)
        let committedDigest = store.stateDigest()
        XCTAssertThrowsError(try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(second)
            try tx.save(Row(id: "m", value: "M", updatedAt: 1))
            throw SyncKernelError(.namespaceRefused, "test abort")
        })
        XCTAssertEqual(try store.leaves(namespace: RecordNamespace.name), committedLeaves)
        XCTAssertEqual(store.stateDigest(), committedDigest)
        let outcome = try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(second) }
        XCTAssertEqual(outcome.changedNamespaces, [RecordNamespace.name])
        XCTAssertEqual(try vector(store, "k"), VersionVector([created(first): 1, a: 5]),
                       "the next transaction compares against the committed leaf, not the rolled-back one")
    }
}
