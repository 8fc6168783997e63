import Foundation
import SQLiteStore
import XCTest

/// The connection: durable settings on open, the statement cache, transactions that commit or
/// roll back whole, and a closed connection that refuses every call.
final class SQLiteConnectionTests: XCTestCase {
    private typealias Connection = SQLiteConnection<SQLiteError>

    /// An error a transaction body throws that is not SQLite's.
    private struct BodyFailed: Error {}

    /// A fresh database file path in a folder removed after the test.
    private func temporaryPath() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sqlitestore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder.appendingPathComponent("test.sqlite").path
    }

    /// A private in-memory database with one table `t(a, b)`.
    private func memory() throws -> Connection {
        let connection = try Connection(path: ":memory:")
        try connection.execute("CREATE TABLE t(a, b)")
        return connection
    }

    /// The number of rows in `t`.
    private func count(_ connection: Connection) throws -> Int64 {
        try connection.statement("SELECT COUNT(*) FROM t").first { $0.int64(0) } ?? -1
    }

    func testAFileOpensInWALWithSynchronousFullAndForeignKeys() throws {
        let connection = try Connection(path: try temporaryPath())
        XCTAssertEqual(try connection.query("PRAGMA journal_mode"), [[.text("wal")]])
        XCTAssertEqual(try connection.query("PRAGMA synchronous"), [[.integer(2)]], "2 is FULL")
        XCTAssertEqual(try connection.query("PRAGMA foreign_keys"), [[.integer(1)]])
    }

    func testAnUnopenablePathFailsWithOpenFailedAndItsStatus() throws {
        let missing = try temporaryPath() + "-missing/test.sqlite"
        XCTAssertThrowsError(try Connection(path: missing)) { error in
            let failure = error as? SQLiteError
            XCTAssertEqual(failure?.code, .openFailed)
            XCTAssertEqual(failure?.status, 14, "SQLITE_CANTOPEN")
            XCTAssertFalse(failure?.description.contains(missing) ?? true, "no path in the error")
        }
    }

    func testAStatementIsPreparedOnceAndReusedFromTheStart() throws {
        let connection = try memory()
        try connection.execute("INSERT INTO t VALUES (1, 'x'); INSERT INTO t VALUES (2, 'y')")
        let sql = "SELECT a FROM t ORDER BY a"
        let first = try connection.statement(sql)
        XCTAssertTrue(try first.step())
        XCTAssertEqual(first.int64(0), 1)
        let again = try connection.statement(sql)
        XCTAssertTrue(first === again, "one prepared statement per SQL text")
        XCTAssertTrue(try again.step())
        XCTAssertEqual(again.int64(0), 1, "a reused statement starts from the first row again")
        XCTAssertEqual(try connection.query(sql), [[.integer(1)], [.integer(2)]])
        XCTAssertEqual(try connection.query(sql), [[.integer(1)], [.integer(2)]])
    }

    func testATransactionCommitsWhenItsBodyReturns() throws {
        let connection = try memory()
        let answer = try connection.transaction { () throws(SQLiteError) -> Int in
            try connection.run("INSERT INTO t VALUES (?, ?)", [.integer(1), .text("x")])
            return 42
        }
        XCTAssertEqual(answer, 42)
        XCTAssertEqual(try count(connection), 1)
    }

    func testATransactionRollsBackWhenItsBodyThrowsAndPassesTheErrorOn() throws {
        let connection = try memory()
        XCTAssertThrowsError(try connection.transaction { () throws in
            try connection.run("INSERT INTO t VALUES (1, 'x')")
            throw BodyFailed()
        }) { error in
            XCTAssertTrue(error is BodyFailed, "the body's own error comes out unchanged, not \(error)")
        }
        XCTAssertEqual(try count(connection), 0, "nothing of the failed body is kept")
        XCTAssertThrowsError(try connection.transaction { () throws(SQLiteError) in
            try connection.run("INSERT INTO t VALUES (2, 'y')")
            try connection.run("INSERT INTO missing VALUES (1)")
        }) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, .statementFailed)
        }
        XCTAssertEqual(try count(connection), 0, "a SQLite failure in the body rolls back the rows before it")
        try connection.transaction { () throws(SQLiteError) in try connection.run("INSERT INTO t VALUES (3, 'z')") }
        XCTAssertEqual(try count(connection), 1, "a rolled-back transaction leaves the connection usable")
    }

    func testAReadTransactionSeesOneSnapshot() throws {
        let path = try temporaryPath()
        let reader = try Connection(path: path)
        let writer = try Connection(path: path)
        try writer.execute("CREATE TABLE t(a, b)")
        try reader.transaction(writing: false) { () throws(SQLiteError) in
            XCTAssertEqual(try count(reader), 0)
            try writer.run("INSERT INTO t VALUES (1, 'x')")
            XCTAssertEqual(try count(reader), 0, "a write committed meanwhile is not seen inside the read")
        }
        XCTAssertEqual(try count(reader), 1)
    }

    func testAClosedConnectionRefusesEveryCallWithClosed() throws {
        let connection = try memory()
        let held = try connection.statement("SELECT a FROM t")
        connection.close()
        let closed = SQLiteError.Code.closed
        XCTAssertThrowsError(try connection.execute("SELECT 1")) { XCTAssertEqual(($0 as? SQLiteError)?.code, closed) }
        XCTAssertThrowsError(try connection.statement("SELECT 1")) { XCTAssertEqual(($0 as? SQLiteError)?.code, closed) }
        XCTAssertThrowsError(try connection.query("SELECT 1")) { XCTAssertEqual(($0 as? SQLiteError)?.code, closed) }
        XCTAssertThrowsError(try connection.transaction { () throws(SQLiteError) in }) {
            XCTAssertEqual(($0 as? SQLiteError)?.code, closed)
        }
        XCTAssertThrowsError(try connection.checkpoint()) { XCTAssertEqual(($0 as? SQLiteError)?.code, closed) }
        XCTAssertThrowsError(try held.step(), "a statement taken before the close") {
            XCTAssertEqual(($0 as? SQLiteError)?.code, closed)
        }
        XCTAssertEqual(held.value(0), .null, "a closed statement has no row to read")
    }

    func testCheckpointLeavesTheWholeDatabaseInTheMainFile() throws {
        let path = try temporaryPath()
        let connection = try Connection(path: path)
        try connection.execute("CREATE TABLE t(a, b)")
        try connection.run("INSERT INTO t VALUES (1, ?)", [.blob([UInt8](repeating: 7, count: 10_000))])
        try connection.checkpoint()
        let wal = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int
        XCTAssertEqual(wal, 0, "the WAL is written back and truncated")
    }
}
