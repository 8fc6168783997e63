import CSQLite
import Foundation
import NotebookNamespace
import SyncKernel
import SyncKernelSimulator
import XCTest

/// The conflict surface: a key's concurrent versions with their writers and vectors, the
/// `concurrentEdit` and `conflictResolved` events, `resolve`, and the open-conflict counts.
final class ConflictAPITests: XCTestCase {
    private let noteID = [UInt8](repeating: 7, count: 16)

    private func note(_ title: String, body: String, at seconds: Double) -> Note {
        Note(id: noteID, title: title, body: body, createdAt: Date(timeIntervalSince1970: 1_000),
             updatedAt: Date(timeIntervalSince1970: seconds))
    }

    /// A fleet of `count` devices holding one shared note, partitioned apart so each edit stays
    /// local until `heal()`.
    private func fleetSharingOneNote(_ world: TestWorld, devices count: Int) throws -> Fleet {
        let fleet = try world.fleet(count, namespaces: [NotebookNamespace.self])
        fleet.announceAll()
        try fleet.write(on: 0, NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(note("groceries", body: "milk", at: 1_000))
        }
        fleet.run(until: 5_000)
        XCTAssertTrue(fleet.allRootsMatch)
        fleet.partition((0..<count).map { [$0] })
        return fleet
    }

    /// Two devices sharing one note, each editing it apart (`bodies`, change stamps `at`), then
    /// healed and run to 30 s: both hold the two concurrent versions.
    private func fleetWithOneConflict(_ world: TestWorld, bodies: (String, String) = ("a", "b"),
                                      at stamps: (Double, Double) = (2_000, 2_000)) throws -> Fleet {
        let fleet = try fleetSharingOneNote(world, devices: 2)
        try fleet.write(on: 0, NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(note("groceries", body: bodies.0, at: stamps.0))
        }
        try fleet.write(on: 1, NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(note("groceries", body: bodies.1, at: stamps.1))
        }
        fleet.heal()
        fleet.announceAll()
        fleet.run(until: 30_000)
        return fleet
    }

    private func conflictEvents(_ fleet: Fleet, _ index: Int) -> [[ConflictVersion]] {
        fleet.events(of: index).compactMap { event in
            if case .concurrentEdit(let namespace, let key, let versions) = event, namespace == "notebook", key == noteID {
                return versions
            }
            return nil
        }
    }

    private func resolvedEvents(_ fleet: Fleet, _ index: Int) -> Int {
        fleet.events(of: index).filter { event in
            if case .conflictResolved(let namespace, let key) = event { return namespace == "notebook" && key == noteID }
            return false
        }.count
    }

    func testTwoDevicesEditOneNoteConcurrentlyBothSeeBothVersionsAndOneResolveEndsItOnBoth() throws {
        let world = try TestWorld()
        let fleet = try fleetWithOneConflict(world, bodies: ("milk, eggs", "milk, bread"), at: (2_000, 1_900))
        XCTAssertTrue(fleet.allRootsMatch)

        let (a, b) = (fleet.replicas[0].store, fleet.replicas[1].store)
        let onA = try a.versions(NotebookNamespace.self, key: noteID)
        let onB = try b.versions(NotebookNamespace.self, key: noteID)
        XCTAssertEqual(onA.count, 2, "both edits are kept")
        XCTAssertEqual(onA, onB, "both devices see the same two versions, in the same order")
        XCTAssertEqual(onA.filter(\.isVisible).count, 1)
        XCTAssertTrue(onA[0].isVisible, "the visible version comes first")
        XCTAssertEqual(try a.row(NotebookNamespace.self, key: noteID), onA[0].row)
        let byWriter = Dictionary(uniqueKeysWithValues: onA.map { ($0.writer, $0.row.body) })
        XCTAssertEqual(byWriter[TestWorld.device(0)], "milk, eggs", "each version names the device that wrote it")
        XCTAssertEqual(byWriter[TestWorld.device(1)], "milk, bread")
        XCTAssertEqual(onA[0].vector.relation(to: onA[1].vector), .concurrent)
        for index in 0...1 {
            let reported = conflictEvents(fleet, index)
            XCTAssertFalse(reported.isEmpty, "device \(index) reports the concurrent edit")
            XCTAssertEqual(reported.last.map { Set($0.map(\.vector)) }, Set(onA.map(\.vector)),
                           "the event carries the versions the store holds")
            XCTAssertEqual(reported.last?.first?.isVisible, true)
        }
        XCTAssertEqual(try a.openConflictCounts(), ["notebook": 1])
        XCTAssertEqual(try a.conflictedKeys(namespace: "notebook"), [noteID])
        XCTAssertEqual(a.summary().namespaces.map(\.openConflicts), [1], "the status counts the open conflict")
        XCTAssertEqual(a.summary().namespaces, b.summary().namespaces, "equal content, equal status")

        // Device A picks the version it already shows, unchanged: the leaf does not move, yet the
        // conflict is part of the digest, so the resolve still reaches B.
        let picked = onA[0]
        let outcome = try fleet.write(on: 0, NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.resolve(picked.row, over: try tx.versions(forKey: noteID))
        }
        XCTAssertEqual(outcome.resolvedConflicts, ["notebook": [noteID]])
        XCTAssertEqual(try a.versions(NotebookNamespace.self, key: noteID).count, 1)
        XCTAssertFalse(fleet.allRootsMatch, "A's digest no longer claims the conflict")
        fleet.run(until: 60_000)

        XCTAssertTrue(fleet.allRootsMatch)
        for store in [a, b] {
            let left = try store.versions(NotebookNamespace.self, key: noteID)
            XCTAssertEqual(left.count, 1, "one version on every device")
            XCTAssertEqual(left.first?.row, picked.row)
            XCTAssertEqual(left.first?.writer, TestWorld.device(0), "the resolve is A's write")
            XCTAssertTrue(left.first.map { $0.vector.relation(to: onA[0].vector) == .dominates } ?? false)
            XCTAssertTrue(left.first.map { $0.vector.relation(to: onA[1].vector) == .dominates } ?? false)
            XCTAssertEqual(try store.openConflictCounts(), ["notebook": 0])
            XCTAssertEqual(store.summary().namespaces.map(\.openConflicts), [0])
        }
        XCTAssertEqual(resolvedEvents(fleet, 0), 1, "A reports its own resolve")
        XCTAssertEqual(resolvedEvents(fleet, 1), 1, "B reports the resolve it received")
        XCTAssertEqual(a.stateDigest(), b.stateDigest())
        try a.verifyStructures()
        try b.verifyStructures()
    }

    func testAConflictReachesADeviceThatOnlyEverHeldTheVisibleVersion() throws {
        let world = try TestWorld()
        let fleet = try fleetSharingOneNote(world, devices: 3)
        try fleet.write(on: 0, NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(note("groceries", body: "zucchini", at: 2_000))
        }
        try fleet.write(on: 1, NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(note("groceries", body: "apples", at: 2_000))
        }
        // Device 2 first receives only device 0's edit (which will be the visible one), then
        // devices 0 and 1 merge; device 2's leaf already equals theirs.
        fleet.partition([[0, 2], [1]])
        fleet.announceAll()
        fleet.run(until: 20_000)
        XCTAssertEqual(try fleet.replicas[2].store.versions(NotebookNamespace.self, key: noteID).count, 1)
        fleet.partition([[0, 1], [2]])
        fleet.announceAll()
        fleet.run(until: 40_000)
        let merged = try fleet.replicas[0].store.versions(NotebookNamespace.self, key: noteID)
        XCTAssertEqual(merged.count, 2)
        XCTAssertEqual(try fleet.replicas[2].store.row(NotebookNamespace.self, key: noteID), merged[0].row,
                       "device 2 shows the same content, so only the conflict tells them apart")
        fleet.heal()
        fleet.announceAll()
        fleet.run(until: 80_000)
        XCTAssertTrue(fleet.allRootsMatch)
        XCTAssertEqual(try fleet.replicas[2].store.versions(NotebookNamespace.self, key: noteID), merged,
                       "the concurrent version reached the device whose leaf never differed")
        XCTAssertFalse(conflictEvents(fleet, 2).isEmpty)
    }

    func testAResolveOverVersionsThatChangedSinceTheyWereReadIsRefusedAndWritesNothing() throws {
        let world = try TestWorld()
        let fleet = try fleetSharingOneNote(world, devices: 3)
        try fleet.write(on: 0, NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(note("groceries", body: "one", at: 2_000))
        }
        try fleet.write(on: 1, NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(note("groceries", body: "two", at: 2_000))
        }
        try fleet.write(on: 2, NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(note("groceries", body: "three", at: 2_000))
        }
        fleet.partition([[0, 1], [2]])
        fleet.announceAll()
        fleet.run(until: 20_000)
        let store = fleet.replicas[0].store
        let seen = try store.versions(NotebookNamespace.self, key: noteID)
        XCTAssertEqual(seen.count, 2)
        fleet.heal()
        fleet.announceAll()
        fleet.run(until: 60_000)
        XCTAssertEqual(try store.versions(NotebookNamespace.self, key: noteID).count, 3, "a third concurrent version arrived")
        let before = store.stateDigest()
        XCTAssertThrowsError(try fleet.write(on: 0, NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.resolve(seen[0].row, over: seen)
        }) { XCTAssertEqual(($0 as? SyncKernelError)?.code, .conflictChanged) }
        XCTAssertEqual(store.stateDigest(), before, "nothing was written")
        XCTAssertEqual(try store.versions(NotebookNamespace.self, key: noteID).count, 3)
        XCTAssertThrowsError(try fleet.write(on: 0, NotebookNamespace.self) { tx throws(SyncKernelError) in
            var other = seen[0]
            other = KeyVersion(key: [1], row: other.row, vector: other.vector, writer: other.writer, isVisible: true)
            try tx.resolve(seen[0].row, over: [other])
        }) { XCTAssertEqual(($0 as? SyncKernelError)?.code, .conflictChanged, "a version of another key") }

        let all = try store.versions(NotebookNamespace.self, key: noteID)
        var composed = note("groceries", body: "one, two, three", at: 3_000)
        composed.tags = ["merged"]
        try fleet.write(on: 0, NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.resolve(composed, over: all) }
        fleet.run(until: 120_000)
        XCTAssertTrue(fleet.allRootsMatch)
        for replica in fleet.replicas {
            XCTAssertEqual(try replica.store.versions(NotebookNamespace.self, key: noteID).map(\.row), [composed])
        }
    }

    func testAnOrdinaryEditOrDeleteOfAKeyInConflictResolvesItAndNamespacesWithoutVersionsRefuse() throws {
        let world = try TestWorld()
        let fleet = try fleetWithOneConflict(world)
        XCTAssertEqual(try fleet.replicas[1].store.openConflictCounts(), ["notebook": 1])
        let outcome = try fleet.write(on: 1, NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.delete(key: noteID)
        }
        XCTAssertEqual(outcome.resolvedConflicts, ["notebook": [noteID]], "a delete that saw both versions ends the conflict")
        fleet.run(until: 60_000)
        XCTAssertTrue(fleet.allRootsMatch)
        XCTAssertTrue(try fleet.replicas[0].store.versions(NotebookNamespace.self, key: noteID).isEmpty)
        XCTAssertEqual(resolvedEvents(fleet, 0), 1)

        let untracked = try world.store([FlipFlopNamespace.self])
        XCTAssertThrowsError(try untracked.versions(FlipFlopNamespace.self, key: [1])) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .operationNotSupportedByRule)
        }
        XCTAssertEqual(try untracked.openConflictCounts(), [:], "a namespace without versions has no conflicts to count")
    }

    func testAStoreFromBeforeWritersAndKeptLeavesOpensWithItsConflictInTheDigest() throws {
        let world = try TestWorld()
        let fleet = try fleetWithOneConflict(world)
        let expected = fleet.replicas[1].store.stateDigest()
        let versions = try fleet.replicas[0].store.versions(NotebookNamespace.self, key: noteID)
        XCTAssertEqual(versions.count, 2)
        try fleet.replicas[0].store.checkpoint()
        fleet.replicas[0].store.close()

        // What an earlier build left: no writer or leaf columns, no partial index, and a structure
        // built over leaves alone (the conflicted key's item was its leaf).
        let path = world.directory + "/store-1.sqlite"
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        for sql in ["DROP INDEX sk_version_live", "ALTER TABLE sk_version DROP COLUMN writer", "ALTER TABLE sk_version DROP COLUMN leaf",
                    "ALTER TABLE ns_notebook DROP COLUMN writer", "DELETE FROM sk_structure"] {
            XCTAssertEqual(sqlite3_exec(db, sql, nil, nil, nil), SQLITE_OK, sql)
        }
        sqlite3_close(db)
        XCTAssertEqual(try KernelStore.openConflictCounts(storedAt: path), ["notebook": 1], "the read-only count reads an older file too")

        let reopened = try world.store([NotebookNamespace.self], device: 0, path: path)
        let upgraded = try reopened.versions(NotebookNamespace.self, key: noteID)
        XCTAssertEqual(upgraded.map(\.row), versions.map(\.row))
        XCTAssertEqual(upgraded.map(\.vector), versions.map(\.vector))
        XCTAssertEqual(upgraded.map(\.writer), [nil, nil], "writers an earlier build never stored are unknown")
        XCTAssertEqual(reopened.stateDigest(), expected, "the conflict is part of the rebuilt structure")
        try reopened.verifyStructures()
        XCTAssertTrue(try reopened.checkIntegrity().isHealthy)
    }

    func testAKeptVersionWhoseStoredLeafOrWriterIsDamagedIsFoundAndNeverTrusted() throws {
        let world = try TestWorld()
        let fleet = try fleetWithOneConflict(world)
        let store = fleet.replicas[0].store
        try store.checkpoint()
        store.close()
        let path = world.directory + "/store-1.sqlite"
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        for sql in ["UPDATE sk_version SET writer = x'0102' WHERE row IS NOT NULL", "UPDATE ns_notebook SET writer = x'03'"] {
            XCTAssertEqual(sqlite3_exec(db, sql, nil, nil, nil), SQLITE_OK, sql)
        }
        sqlite3_close(db)
        let damagedWriters = try world.store([NotebookNamespace.self], device: 0, path: path)
        XCTAssertEqual(try damagedWriters.versions(NotebookNamespace.self, key: noteID).map(\.writer), [nil, nil],
                       "a writer that is not 32 bytes reads as unknown")
        XCTAssertTrue(try damagedWriters.checkIntegrity().isHealthy, "a writer decides nothing, so it is no damage")
        damagedWriters.close()

        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        XCTAssertEqual(sqlite3_exec(db, "UPDATE sk_version SET leaf = zeroblob(32) WHERE row IS NOT NULL", nil, nil, nil), SQLITE_OK)
        sqlite3_close(db)
        let damagedLeaf = try world.store([NotebookNamespace.self], device: 0, path: path)
        let report = try damagedLeaf.checkIntegrity()
        XCTAssertEqual(report.damagedRows.map(\.reason), [.leafMismatch], "a kept version must decode to the leaf stored beside it")
        XCTAssertEqual(report.differingStructures, ["notebook"], "the conflict item the structure holds is not the stored one")
        try damagedLeaf.repair()
        XCTAssertTrue(try damagedLeaf.checkIntegrity().isHealthy)
        XCTAssertEqual(try damagedLeaf.versions(NotebookNamespace.self, key: noteID).count, 1, "the damaged version was set aside")
        try damagedLeaf.verifyStructures()
    }

    func testOpenConflictCountsReadOnlyFromTheFileAndCountThroughThePartialIndex() throws {
        let world = try TestWorld()
        let fleet = try fleetSharingOneNote(world, devices: 2)
        try fleet.write(on: 0, NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(note("groceries", body: "a", at: 2_000))
        }
        try fleet.write(on: 1, NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(note("groceries", body: "b", at: 2_000))
            try tx.delete(key: [UInt8](repeating: 9, count: 16))
        }
        fleet.heal()
        fleet.announceAll()
        fleet.run(until: 30_000)
        let path = world.directory + "/store-1.sqlite"
        let store = fleet.replicas[0].store
        XCTAssertEqual(try store.openConflictCounts(), ["notebook": 1])
        try store.checkpoint()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(try KernelStore.openConflictCounts(storedAt: path), ["notebook": 1])
        XCTAssertEqual(try KernelStore.summary(storedAt: path).namespaces.map(\.openConflicts), [1],
                       "synckernel status reads the count from the file")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "reading the counts wrote nothing")
        XCTAssertThrowsError(try KernelStore.openConflictCounts(storedAt: world.directory + "/none.sqlite")) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .notAStore)
        }

        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil), SQLITE_OK)
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        let plan = "EXPLAIN QUERY PLAN SELECT ns, COUNT(DISTINCT key) FROM sk_version WHERE row IS NOT NULL GROUP BY ns"
        XCTAssertEqual(sqlite3_prepare_v2(db, plan, -1, &statement, nil), SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        var details: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW { details.append(String(cString: sqlite3_column_text(statement, 3))) }
        XCTAssertTrue(details.contains { $0.contains("sk_version_live") }, "the count reads the partial index: \(details)")
        XCTAssertFalse(details.contains { $0.hasPrefix("SCAN sk_version") && !$0.contains("INDEX") }, "\(details)")
    }
}
