import Foundation
import NotebookNamespace
import SyncKernel
import SyncKernelSimulator
import TestServers
import XCTest

/// `synckernel check` as a user runs it: exit 0 on a healthy store, 1 on damage, 2 on a file
/// that does not open as a store (never a crash), and `--repair` that leaves a store the next
/// check finds healthy.
final class CheckCommandTests: XCTestCase {
    /// Runs `synckernel check` with `arguments`; returns its exit status and standard output.
    private func check(_ arguments: [String], file: StaticString = #filePath,
                       line: UInt = #line) async throws -> (status: Int32, output: String) {
        let result = try await SynckernelProgram.run(["check"] + arguments)
        XCTAssertFalse(result.crashed, "never a crash", file: file, line: line)
        return (result.status, result.output)
    }

    /// The JSON object `check --json` printed.
    private func report(_ output: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    }

    /// A closed notebook store of `count` seeded notes.
    private func notebookStore(_ world: TestWorld, count: Int) throws -> (path: String, ids: [[UInt8]]) {
        var random = SeededGenerator(seed: 12)
        let path = world.path()
        let store = try KernelStore(path: path, namespaces: NamespaceSet([NotebookNamespace.self]))
        try store.configureDevice(TestWorld.device(0))
        let when = Date(timeIntervalSince1970: 1_700_000_000)
        let notes = (0..<count).map { Note(id: random.bytes(16), title: "t\($0)", body: "b\($0)", createdAt: when, updatedAt: when) }
        try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in for note in notes { try tx.save(note) } }
        try store.checkpoint()
        store.close()
        return (path, notes.map(\.id))
    }

    func testAHealthyStoreExitsZeroAndListsWhatItChecked() async throws {
        let world = try TestWorld()
        let (path, _) = try notebookStore(world, count: 20)
        let (status, output) = try await check(["--db", path, "--json"])
        XCTAssertEqual(status, 0, output)
        let json = try report(output)
        XCTAssertEqual(json["status"] as? String, "healthy")
        XCTAssertEqual(json["namespaces"] as? [String], ["notebook"])
        XCTAssertEqual(json["rows_checked"] as? Int, 20)
        XCTAssertEqual(json["sqlite_problems"] as? [String], [])
    }

    func testADamagedStoreExitsOneAndRepairLeavesItHealthy() async throws {
        let world = try TestWorld()
        let (path, ids) = try notebookStore(world, count: 20)
        let key = ids[3].map { String(format: "%02x", $0) }.joined()
        try SQLiteTestHelper.execute("UPDATE ns_notebook SET row = x'ff00ff' WHERE key = x'\(key)'", at: path)
        let found = try await check(["--db", path, "--json"])
        XCTAssertEqual(found.status, 1, found.output)
        let damaged = try report(found.output)
        XCTAssertEqual(damaged["status"] as? String, "damaged")
        XCTAssertEqual((damaged["damaged_rows"] as? [[String: Any]])?.compactMap { $0["key"] as? String }, [key])
        let unrepaired = try await check(["--db", path])
        XCTAssertEqual(unrepaired.status, 1, "without --repair nothing changed")

        let repaired = try await check(["--db", path, "--repair", "--json"])
        XCTAssertEqual(repaired.status, 0, repaired.output)
        let mended = try report(repaired.output)
        XCTAssertEqual((mended["repair"] as? [String: Any])?["quarantined"] as? Int, 1)
        let again = try await check(["--db", path, "--json"])
        XCTAssertEqual(again.status, 0, again.output)
        let quarantined = try XCTUnwrap(try report(again.output)["quarantined"] as? [[String: Any]])
        XCTAssertEqual(quarantined.compactMap { $0["key"] as? String }, [key])
        XCTAssertEqual(quarantined.compactMap { $0["site"] as? String }, ["repair"])
    }

    func testRejectAFileThatIsNotAStoreWithExitTwoAndLeaveItAsItWas() async throws {
        let world = try TestWorld()
        var random = SeededGenerator(seed: 8)
        let zero = world.path()
        let noise = world.path()
        let foreign = world.path()
        XCTAssertTrue(FileManager.default.createFile(atPath: zero, contents: Data()))
        XCTAssertTrue(FileManager.default.createFile(atPath: noise, contents: Data(random.bytes(8192))))
        try SQLiteTestHelper.execute("CREATE TABLE people(name TEXT)", at: foreign)
        for (path, word) in [(zero, "notAStore"), (noise, "notAStore"), (foreign, "foreignDatabase")] {
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let (status, output) = try await check(["--db", path])
            XCTAssertEqual(status, 2, output)
            XCTAssertTrue(output.contains(word), output)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
        }
        let missing = world.path()
        let missingFile = try await check(["--db", missing])
        XCTAssertEqual(missingFile.status, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing), "check never creates a store")
        let noArguments = try await check([])
        XCTAssertEqual(noArguments.status, 64)
    }

    /// Overwrites page `page` (4 KiB pages, counted from 0) of the file at `path` with seeded noise.
    private func overwritePage(_ page: Int, of path: String, seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(page * 4096))
        try handle.write(contentsOf: Data(random.bytes(4096)))
        try handle.close()
    }

    func testAStoreWhosePagesSQLiteCannotReadIsReportedNotCrashedOn() async throws {
        let world = try TestWorld()
        let (schemaDamaged, _) = try notebookStore(world, count: 2000)
        try overwritePage(3, of: schemaDamaged, seed: 21)
        let unopenable = try await check(["--db", schemaDamaged])
        XCTAssertEqual(unopenable.status, 2, "seed 21: a page the open reads is damaged: \(unopenable.output)")
        XCTAssertTrue(unopenable.output.contains("SK501"), unopenable.output)

        let (rowsDamaged, _) = try notebookStore(world, count: 2000)
        // A leaf page of the rows, well inside the table: one only a scan of the rows reads
        // (dbstat counts pages from 1; `overwritePage` from 0).
        let leaf = try SQLiteTestHelper.integer("""
            SELECT pageno FROM dbstat WHERE name = 'ns_notebook' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 10
            """, at: rowsDamaged)
        try overwritePage(Int(leaf) - 1, of: rowsDamaged, seed: 21)
        let found = try await check(["--db", rowsDamaged, "--repair", "--json"])
        XCTAssertEqual(found.status, 1, "seed 21: a page of rows only a scan reads, which repair cannot mend: \(found.output)")
        let json = try report(found.output)
        XCTAssertEqual(json["status"] as? String, "damaged")
        XCTAssertFalse((json["sqlite_problems"] as? [String] ?? []).isEmpty, found.output)
    }
}
