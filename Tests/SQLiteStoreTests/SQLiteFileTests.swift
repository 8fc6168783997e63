import Foundation
import SQLiteStore
import XCTest

/// What is at a path before it is opened, the read-only look inside, and a creation that is whole
/// or nothing.
final class SQLiteFileTests: XCTestCase {
    private typealias Connection = SQLiteConnection<SQLiteError>

    /// A fresh folder removed after the test.
    private func temporaryFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sqlitefile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder.path
    }

    private func files(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    func testClassifyingReadsTheHeaderOnly() throws {
        let folder = try temporaryFolder()
        XCTAssertEqual(try SQLiteFile.classify(folder + "/none"), .missing)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/empty", contents: Data()))
        XCTAssertEqual(try SQLiteFile.classify(folder + "/empty"), .empty)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/short", contents: Data("SQLite format 3\0".utf8)))
        XCTAssertEqual(try SQLiteFile.classify(folder + "/short"), .notSQLite, "a header is 100 bytes")
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/text", contents: Data(repeating: 65, count: 500)))
        XCTAssertEqual(try SQLiteFile.classify(folder + "/text"), .notSQLite)
        let rollback = try Connection(path: folder + "/db")
        try rollback.execute("PRAGMA journal_mode=DELETE; PRAGMA application_id = -7; CREATE TABLE t(a)")
        rollback.close()
        XCTAssertEqual(try SQLiteFile.classify(folder + "/db"), .database(applicationID: -7, isWAL: false))
        let wal = try Connection(path: folder + "/wal")
        try wal.setApplicationID(42)
        try wal.execute("CREATE TABLE t(a)")
        wal.close()
        XCTAssertEqual(try SQLiteFile.classify(folder + "/wal"), .database(applicationID: 42, isWAL: true))
        XCTAssertThrowsError(try SQLiteFile.classify(folder)) { XCTAssertEqual(($0 as? SQLiteError)?.code, .openFailed) }
    }

    func testAReadOnlyConnectionSeesTheWALAndCreatesNothingWithoutOne() throws {
        let folder = try temporaryFolder()
        let path = folder + "/odd?name#with%chars.sqlite"
        let writer = try Connection(path: path)
        try writer.execute("CREATE TABLE kept(a); CREATE TABLE sk_x(a)")
        try writer.setApplicationID(9)
        writer.close()
        XCTAssertEqual(try files(in: folder), ["odd?name#with%chars.sqlite"], "closed: the WAL went into the file")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let reader = try Connection(readingOnly: path)
        XCTAssertEqual(try reader.tableNames(), ["kept", "sk_x"])
        XCTAssertEqual(try reader.applicationID(), 9)
        XCTAssertThrowsError(try reader.execute("CREATE TABLE more(a)"), "read-only")
        reader.close()
        XCTAssertEqual(try files(in: folder), ["odd?name#with%chars.sqlite"], "immutable: no -wal, no -shm")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)

        let open = try Connection(path: path)
        try open.execute("CREATE TABLE only_in_the_wal(a)")
        let peek = try Connection(readingOnly: path)
        XCTAssertEqual(try peek.tableNames(), ["kept", "only_in_the_wal", "sk_x"], "with a WAL beside it, its transactions count")
        peek.close()
        open.close()
    }

    func testACreationIsWholeOrNothingAndNeverReplacesAFile() throws {
        let folder = try temporaryFolder()
        let path = folder + "/new.sqlite"
        XCTAssertTrue(FileManager.default.createFile(atPath: path + "-creating", contents: Data([9, 9])))
        try Connection.create(at: path) { (db: Connection) throws(SQLiteError) in
            try db.setApplicationID(5)
            try db.execute("CREATE TABLE t(a)")
        }
        XCTAssertEqual(try files(in: folder), ["new.sqlite"], "the leftover is gone, the store is whole in its file")
        XCTAssertEqual(try SQLiteFile.classify(path), .database(applicationID: 5, isWAL: true))

        XCTAssertThrowsError(try Connection.create(at: path) { (db: Connection) throws(SQLiteError) in
            try db.execute("CREATE TABLE other(a)")
        }) { XCTAssertEqual(($0 as? SQLiteError)?.code, .createFailed) }
        XCTAssertEqual(try Connection(readingOnly: path).tableNames(), ["t"], "an existing file is never replaced")

        let failed = folder + "/failed.sqlite"
        XCTAssertThrowsError(try Connection.create(at: failed) { (db: Connection) throws(SQLiteError) in
            try db.execute("CREATE TABLE t(a); THIS IS NOT SQL")
        })
        XCTAssertEqual(try files(in: folder), ["new.sqlite"], "a set-up that fails leaves nothing")
    }

    func testIntegrityProblemsIsEmptyForAHealthyDatabase() throws {
        let connection = try Connection(path: try temporaryFolder() + "/ok.sqlite")
        try connection.execute("CREATE TABLE t(a PRIMARY KEY, b); INSERT INTO t VALUES(1, 2)")
        XCTAssertEqual(try connection.integrityProblems(), [])
    }
}
