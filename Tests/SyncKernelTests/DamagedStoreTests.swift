import Foundation
import SyncKernel
import SyncKernelSimulator
import XCTest

/// Damaged stores are contained, not fatal: a file that is not one of ours is refused with a
/// typed error and left byte for byte as it was; a stored row that does not read back is
/// quarantined (one transaction: row out, structure moved, quarantine entry written), reported,
/// and replaced by a sibling's good copy through the ordinary exchange.
final class DamagedStoreTests: XCTestCase {
    private typealias Row = RecordNamespace.Row

    private let rows = (0..<12).map { Row(id: "k\($0)", value: "v\($0)", updatedAt: Int64($0 + 1)) }
    /// `rows` in key order (as the store lists them: "k10" before "k2").
    private var keyOrdered: [Row] { rows.sorted { $0.id < $1.id } }

    private func save(_ rows: [Row], _ store: KernelStore) throws {
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for row in rows { try tx.save(row) }
        }
    }

    /// The error code `body` throws, nil when it throws none or another type.
    private func code(_ body: () throws -> Void) -> SyncKernelError.Code? {
        do {
            try body()
            return nil
        } catch {
            return (error as? SyncKernelError)?.code
        }
    }

    /// Opening `path` fails with `expected`, and the file's bytes and the folder's files are
    /// exactly as before.
    private func assertRefused(_ path: String, _ expected: SyncKernelError.Code, _ message: String,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        XCTAssertEqual(code { _ = try KernelStore(path: path, namespaces: NamespaceSet([RecordNamespace.self])) }, expected,
                       message, file: file, line: line)
        XCTAssertEqual(code { _ = try KernelStore.namespaceNames(storedAt: path) }, expected, message, file: file, line: line)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "\(message): not a byte written", file: file, line: line)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), filesBefore,
                       "\(message): no file created beside it", file: file, line: line)
    }

    /// A store holding `rows`, configured as device `device`, closed; its path.
    private func closedStore(_ world: TestWorld, device: Int = 0, rows: [Row]? = nil) throws -> String {
        let path = world.path()
        let store = try world.store(device: device, path: path)
        try save(rows ?? self.rows, store)
        try store.checkpoint()
        store.close()
        return path
    }

    /// The bytes of the store file and of its WAL, if any.
    private func files(_ path: String) throws -> [Data] {
        try [path, path + "-wal"].filter { FileManager.default.fileExists(atPath: $0) }.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    }

    /// The SQL literal of `bytes`.
    private func blob(_ bytes: [UInt8]) -> String {
        "x'" + bytes.map { String(format: "%02x", $0) }.joined() + "'"
    }

    /// Replaces the stored row bytes of `id` with `bytes`.
    private func damage(_ id: String, with bytes: [UInt8], at path: String) throws {
        try SQLiteTestHelper.execute("UPDATE ns_records SET row = \(blob(bytes)) WHERE key = CAST('\(id)' AS BLOB)", at: path)
    }

    // MARK: Files that are not a store

    func testRejectAZeroLengthFileAndLeaveItUnchanged() throws {
        let world = try TestWorld()
        let path = world.path()
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        try assertRefused(path, .notAStore, "a truncated store is not an empty one")
    }

    func testRejectRandomBytesAndLeaveThemUnchanged() throws {
        let world = try TestWorld()
        var random = SeededGenerator(seed: 31)
        for size in [1, 99, 100, 4096, 20_000] {
            let path = world.path()
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(random.bytes(size))))
            try assertRefused(path, .notAStore, "seed 31, \(size) random bytes")
        }
    }

    func testRejectAForeignSQLiteDatabaseAndLeaveItUnchanged() throws {
        let world = try TestWorld()
        let rollback = world.path()
        try SQLiteTestHelper.execute("CREATE TABLE people(name TEXT); INSERT INTO people VALUES('ada');", at: rollback)
        try assertRefused(rollback, .foreignDatabase, "another application's database")

        let wal = world.path()
        try SQLiteTestHelper.execute("PRAGMA journal_mode=WAL; CREATE TABLE people(name TEXT); INSERT INTO people VALUES('ada');", at: wal)
        try assertRefused(wal, .foreignDatabase, "another application's WAL database, looked into read-only")

        let marked = world.path()
        try SQLiteTestHelper.execute("PRAGMA journal_mode=WAL; PRAGMA application_id = 1234; CREATE TABLE sk_version(x);", at: marked)
        try assertRefused(marked, .foreignDatabase, "another application's mark, even over a table name of ours")

        let mixed = try closedStore(world)
        try SQLiteTestHelper.execute("PRAGMA application_id = 0; CREATE TABLE people(name TEXT);", at: mixed)
        try assertRefused(mixed, .foreignDatabase, "unmarked, and a table that is not the kernel's")

        let empty = world.path()
        try SQLiteTestHelper.execute("PRAGMA journal_mode=WAL;", at: empty)
        try assertRefused(empty, .foreignDatabase, "an unmarked SQLite database with no table at all")
    }

    func testRejectADamagedHeaderWithATypedErrorNeverATrap() throws {
        let world = try TestWorld()
        var random = SeededGenerator(seed: 47)
        var header = Array("SQLite format 3\0".utf8) + random.bytes(4096 - 16)
        header[18] = 2
        header[19] = 2
        for index in 68..<72 { header[index] = 0 }
        let path = world.path()
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(header)))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertNotNil(code { _ = try KernelStore(path: path, namespaces: NamespaceSet([RecordNamespace.self])) },
                        "seed 47: SQLite's own refusal comes out typed")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
    }

    func testANewStoreIsCreatedWholeAndMarkedAndALeftoverOfAnInterruptedCreationIsCleared() throws {
        let world = try TestWorld()
        let path = world.path()
        XCTAssertTrue(FileManager.default.createFile(atPath: path + "-creating", contents: Data([1, 2, 3])))
        let store = try world.store(path: path)
        try save(rows, store)
        store.close()
        XCTAssertEqual(try SQLiteTestHelper.integer("PRAGMA application_id", at: path), 0x5379_6E4B, "marked \"SynK\"")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-creating"))
        XCTAssertEqual(try KernelStore.namespaceNames(storedAt: path), [RecordNamespace.name])
        XCTAssertEqual(try world.store(path: path).rows(RecordNamespace.self), keyOrdered)
    }

    func testAStoreOfAnEarlierBuildIsAcceptedAndMarked() throws {
        let world = try TestWorld()
        let path = try closedStore(world)
        try SQLiteTestHelper.execute("PRAGMA application_id = 0; DROP TABLE sk_quarantine;", at: path)
        XCTAssertEqual(try SQLiteTestHelper.integer("PRAGMA application_id", at: path), 0)
        let store = try world.store(path: path)
        XCTAssertEqual(try store.rows(RecordNamespace.self), keyOrdered)
        XCTAssertEqual(try store.quarantinedRows(), [])
        store.close()
        XCTAssertEqual(try SQLiteTestHelper.integer("PRAGMA application_id", at: path), 0x5379_6E4B, "marked on the way")
    }

    // MARK: Rows that do not read back

    func testACorruptedRowIsQuarantinedWhereOpenDecodesItAndTheRestOpens() throws {
        let world = try TestWorld()
        let path = try closedStore(world)
        let digest = try world.store(path: path).stateDigest()
        try damage("k4", with: [0xff, 0x00], at: path)
        try SQLiteTestHelper.execute("""
            UPDATE ns_records SET leaf = NULL; DELETE FROM sk_structure; DELETE FROM sk_symbol; DELETE FROM sk_bucket;
            """, at: path)
        let store = try world.store(path: path)
        XCTAssertEqual(store.quarantinedAtOpen.map(\.key), [Array("k4".utf8)])
        XCTAssertEqual(store.quarantinedAtOpen.map(\.site), [.open])
        XCTAssertEqual(store.quarantinedAtOpen.map(\.reason), [.undecodable])
        XCTAssertEqual(store.quarantinedAtOpen.first?.damage.row, [0xff, 0x00], "kept as found")
        XCTAssertEqual(store.takeNewlyQuarantined(), store.quarantinedAtOpen, "reported once")
        XCTAssertEqual(store.takeNewlyQuarantined(), [])
        XCTAssertEqual(try store.rows(RecordNamespace.self), keyOrdered.filter { $0.id != "k4" })
        XCTAssertNotEqual(store.stateDigest(), digest)
        XCTAssertEqual(try store.recomputedStateDigest(), store.stateDigest(), "the digest excludes the quarantined leaf")
        XCTAssertNoThrow(try store.verifyStructures())
    }

    func testACorruptedRowIsQuarantinedAtTheFirstRegistrationOfACausalNamespace() throws {
        let world = try TestWorld()
        let path = try closedStore(world)
        try damage("k9", with: Array(RecordNamespace.rowEncoding(of: rows[2])), at: path)
        try SQLiteTestHelper.execute("UPDATE ns_records SET vector = NULL, synced_at = NULL, content_vector = NULL", at: path)
        let store = try world.store(path: path)
        XCTAssertEqual(store.quarantinedAtOpen.map(\.key), [Array("k9".utf8)])
        XCTAssertEqual(store.quarantinedAtOpen.map(\.reason), [.wrongKey], "k9 held k2's row")
        XCTAssertEqual(try store.version(namespace: RecordNamespace.name, key: Array("k1".utf8))?.vector, VersionVector(),
                       "the other rows registered")
        XCTAssertEqual(try store.recomputedStateDigest(), store.stateDigest())
        XCTAssertNoThrow(try store.verifyStructures())
    }

    func testARowAMigrationMeetsAsNonCBORIsQuarantinedButCBORItCannotReadStillRefuses() throws {
        let world = try TestWorld()
        let path = world.path()
        do {
            let store = try KernelStore(path: path, namespaces: try NamespaceSet([Decl.Base.self]))
            try store.configureDevice(TestWorld.device(0))
            try store.write(Decl.Base.self) { tx throws(SyncKernelError) in
                for index in 0..<4 { try tx.save(Decl.Row(id: "r\(index)", value: "v", count: Int64(index))) }
            }
            store.close()
        }
        try SQLiteTestHelper.execute("UPDATE ns_decl SET row = x'a0' WHERE key = CAST('r1' AS BLOB)", at: path)
        XCTAssertEqual(code { _ = try KernelStore(path: path, namespaces: try NamespaceSet([Decl.FieldAdded.self])) },
                       .rowFormatChanged, "CBOR the migration cannot read: the migration's fault, the store refuses")
        try SQLiteTestHelper.execute("UPDATE ns_decl SET row = x'ff' WHERE key = CAST('r1' AS BLOB)", at: path)
        let migrated = try KernelStore(path: path, namespaces: try NamespaceSet([Decl.FieldAdded.self]))
        XCTAssertEqual(migrated.quarantinedAtOpen.map(\.key), [Array("r1".utf8)], "bytes that are not CBOR are damage")
        XCTAssertEqual(try migrated.rows(Decl.FieldAdded.self).map(\.id), ["r0", "r2", "r3"])
        XCTAssertEqual(try migrated.recomputedStateDigest(), migrated.stateDigest())
    }

    func testAQuarantineIsPartOfItsTransactionAndLeavesNoTraceWhenItRollsBack() throws {
        let world = try TestWorld()
        let path = try closedStore(world)
        try damage("k3", with: [0xff], at: path)
        let store = try world.store(path: path)
        let digest = store.stateDigest()
        XCTAssertNotNil(code {
            try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
                XCTAssertNil(try tx.row(forKey: Array("k3".utf8)))
                throw SyncKernelError(.namespaceRefused, "test abort")
            }
        })
        XCTAssertEqual(try store.quarantinedRows(), [], "rolled back with the write")
        XCTAssertEqual(store.takeNewlyQuarantined(), [], "nothing reported for a rolled-back transaction")
        XCTAssertEqual(store.stateDigest(), digest)
        XCTAssertEqual(try store.leafHash(namespace: RecordNamespace.name, key: Array("k3".utf8)),
                       RecordNamespace.leaf(of: rows[3]).hash, "the row is still stored, structure untouched")
        let outcome = try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            XCTAssertEqual(try tx.allRows().count, rows.count - 1)
        }
        XCTAssertEqual(outcome.changedNamespaces, [RecordNamespace.name], "the quarantine moved the digest")
        XCTAssertEqual(outcome.rowsWritten, 0, "a quarantine is not a row the host wrote")
        XCTAssertEqual(try store.quarantinedRows().map(\.site), [.read])
        XCTAssertEqual(store.takeNewlyQuarantined().map(\.key), [Array("k3".utf8)])
        XCTAssertEqual(try store.recomputedStateDigest(), store.stateDigest())
    }

    /// A: the rows with `id` damaged; B: the same rows, then `id` edited. The two start equal but
    /// for that edit.
    private func pairWithDamage(_ world: TestWorld, id: String) throws -> (a: KernelStore, b: KernelStore) {
        let pathA = try closedStore(world, device: 0)
        try damage(id, with: [0xff, 0xee], at: pathA)
        let b = try world.store(device: 1)
        try save(rows, b)
        try save([Row(id: id, value: "edited on b", updatedAt: 100)], b)
        return (try world.store(device: 0, path: pathA), b)
    }

    func testADamagedRowAboutToBeShippedIsQuarantinedAndWantedAndTheSiblingsCopyArrives() throws {
        let world = try TestWorld()
        let (a, b) = try pairWithDamage(world, id: "k7")
        var pump = ExchangePump(a: b, b: a)
        try pump.run(try b.sketchStart(for: RecordNamespace.name, expectedItems: 2))
        XCTAssertEqual(try a.quarantinedRows().map(\.site), [.ship], "found while answering b's sketch")
        XCTAssertEqual(a.stateDigest(), b.stateDigest(), "converged")
        XCTAssertEqual(try a.row(RecordNamespace.self, key: Array("k7".utf8))?.value, "edited on b")
        XCTAssertEqual(try a.recomputedStateDigest(), a.stateDigest())
    }

    func testADamagedLocalRowIsQuarantinedWhenAPeersRowMergesOverIt() throws {
        let world = try TestWorld()
        let (a, b) = try pairWithDamage(world, id: "k2")
        var pump = ExchangePump(a: a, b: b)
        try pump.run(try a.sketchStart(for: RecordNamespace.name, expectedItems: 2))
        XCTAssertEqual(try a.quarantinedRows().map(\.site), [.merge], "found while merging b's row")
        XCTAssertEqual(a.stateDigest(), b.stateDigest())
        XCTAssertEqual(try a.row(RecordNamespace.self, key: Array("k2".utf8))?.value, "edited on b")
    }

    func testTheSpecAnswerLeavesADamagedRowOutAndQuarantinesIt() throws {
        let world = try TestWorld()
        let path = try closedStore(world)
        try damage("k5", with: Array(RecordNamespace.rowEncoding(of: Row(id: "k5", value: "tampered", updatedAt: 6))), at: path)
        let a = try world.store(path: path)
        let b = try world.store(device: 1)
        let responses = try a.respond(to: b.reconcileRequest(for: RecordNamespace.name))
        XCTAssertEqual(responses.flatMap(\.rows).count, rows.count - 1, "decodes, but not to its stored leaf: not shipped")
        XCTAssertEqual(try a.quarantinedRows().map(\.reason), [.leafMismatch])
        for response in responses { try b.apply(response) }
        XCTAssertEqual(a.stateDigest(), b.stateDigest(), "what a still holds is exactly what b got")
    }

    func testAReplicaReportsTheQuarantineAndItsSiblingRestoresTheRow() throws {
        let world = try TestWorld()
        let pathA = try closedStore(world, device: 0)
        let pathB = try closedStore(world, device: 1)
        try damage("k6", with: [0x00], at: pathA)
        let a = try world.store(device: nil, path: pathA)
        let b = try world.store(device: nil, path: pathB)
        XCTAssertEqual(a.stateDigest(), b.stateDigest(), "the damage does not show in the digest before the row is read")
        XCTAssertEqual(try a.rows(RecordNamespace.self).count, rows.count - 1, "the read finds it")
        XCTAssertNotEqual(a.stateDigest(), b.stateDigest(), "the quarantined row left a's digest")
        XCTAssertEqual(try a.recomputedStateDigest(), a.stateDigest())
        let devices = [TestWorld.device(0), TestWorld.device(1)]
        let fleet = Fleet(replicas: [
            try Replica(device: devices[0], account: world.account, siblings: devices, store: a),
            try Replica(device: devices[1], account: world.account, siblings: devices, store: b),
        ], conditions: RelayConditions(), seed: 5)
        fleet.announceAll()
        _ = fleet.run(until: 60_000)
        XCTAssertTrue(fleet.allRootsMatch, "seed 5: the sibling's copy came back")
        XCTAssertEqual(try a.row(RecordNamespace.self, key: Array("k6".utf8)), rows[6])
        let reported = fleet.events(of: 0).compactMap { event -> [QuarantinedRow]? in
            if case .rowsQuarantined(let rows) = event { return rows }
            return nil
        }
        XCTAssertEqual(reported.flatMap { $0.map(\.key) }, [Array("k6".utf8)], "reported once, by the replica")
        XCTAssertEqual(try a.quarantinedRows().count, 1, "kept aside for the host")
    }

    // MARK: Check and repair

    func testAHealthyStoreChecksHealthy() throws {
        let world = try TestWorld()
        let store = try world.store(path: try closedStore(world))
        let report = try store.checkIntegrity()
        XCTAssertTrue(report.isHealthy)
        XCTAssertEqual(report.rowsChecked, rows.count)
        XCTAssertEqual([report.sqliteProblems, report.differingStructures], [[], []])
        XCTAssertEqual(report.damagedRows, [])
        XCTAssertEqual(report.quarantined, [])
        let repair = try store.repair()
        XCTAssertEqual(repair.quarantined, [])
        XCTAssertEqual(repair.rebuiltStructures, [])
    }

    func testCheckFindsEveryKindOfDamageWithoutChangingAnythingAndRepairMendsIt() throws {
        let world = try TestWorld()
        let path = try closedStore(world)
        try damage("k1", with: [0xff], at: path)
        try damage("k2", with: Array(RecordNamespace.rowEncoding(of: rows[8])), at: path)
        try damage("k3", with: Array(RecordNamespace.rowEncoding(of: Row(id: "k3", value: "tampered", updatedAt: 4))), at: path)
        try SQLiteTestHelper.execute("""
            UPDATE ns_records SET vector = x'ff' WHERE key = CAST('k4' AS BLOB);
            INSERT INTO sk_version(ns, key, vector, row) VALUES('records', CAST('k5' AS BLOB), x'ffff', NULL);
            UPDATE sk_structure SET count = count + 3;
            """, at: path)
        let store = try world.store(path: path)
        let before = try files(path)
        let report = try store.checkIntegrity()
        XCTAssertFalse(report.isHealthy)
        XCTAssertEqual(report.sqliteProblems, [])
        XCTAssertEqual(report.differingStructures, [RecordNamespace.name])
        XCTAssertEqual(report.damagedRows.map { "\(String(decoding: $0.key, as: UTF8.self)) \($0.reason) \($0.vector != nil)" }, [
            "k1 undecodable false", "k2 wrongKey false", "k3 leafMismatch false", "k4 unreadableVersion false",
            "k5 unreadableVersion true",
        ])
        XCTAssertEqual(report.rowsChecked, rows.count + 1)
        XCTAssertEqual(try files(path), before, "the check wrote nothing, to the file or its WAL")
        XCTAssertEqual(try store.quarantinedRows(), [])

        let repair = try store.repair()
        XCTAssertEqual(repair.quarantined.map(\.damage), report.damagedRows)
        XCTAssertEqual(repair.quarantined.map(\.site), Array(repeating: .repair, count: 5))
        XCTAssertEqual(repair.rebuiltStructures, [RecordNamespace.name])
        let after = try store.checkIntegrity()
        XCTAssertTrue(after.isHealthy, "\(after)")
        XCTAssertEqual(after.quarantined, repair.quarantined)
        XCTAssertEqual(try store.rows(RecordNamespace.self).map(\.id), ["k0", "k10", "k11", "k5", "k6", "k7", "k8", "k9"])
        XCTAssertEqual(try store.recomputedStateDigest(), store.stateDigest())
        XCTAssertEqual(try store.tombstones(namespace: RecordNamespace.name), [], "the unreadable delete version is set aside")
    }
}
