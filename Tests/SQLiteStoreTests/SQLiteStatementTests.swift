import SQLiteStore
import XCTest

/// The statement: every value kind round-trips, an empty blob stays a blob, bindings never leak
/// from one execution into the next, and a refused bind fails the step.
final class SQLiteStatementTests: XCTestCase {
    private typealias Connection = SQLiteConnection<SQLiteError>

    /// A private in-memory database with one table `t(a, b)`.
    private func memory() throws -> Connection {
        let connection = try Connection(path: ":memory:")
        try connection.execute("CREATE TABLE t(a, b)")
        return connection
    }

    func testEveryValueKindRoundTrips() throws {
        let connection = try memory()
        let values: [SQLiteValue] = [.null, .integer(Int64.min), .integer(Int64.max), .real(-0.5), .text(""),
                                     .text("héllo ✓"), .blob([]), .blob([0, 1, 0, 255])]
        for (index, value) in values.enumerated() {
            try connection.run("INSERT INTO t VALUES (?, ?)", [.integer(Int64(index)), value])
        }
        XCTAssertEqual(try connection.query("SELECT b FROM t ORDER BY a").map(\.[0]), values)
    }

    func testTypedBindsAndReadsRoundTrip() throws {
        let connection = try memory()
        try connection.statement("INSERT INTO t VALUES (?, ?)").bind(1, Int64(-7)).bind(2, "text").run()
        try connection.statement("INSERT INTO t VALUES (?, ?)").bind(1, Int64(8)).bind(2, [9, 10] as [UInt8]).run()
        let rows = try connection.statement("SELECT a, b FROM t ORDER BY a")
        XCTAssertTrue(try rows.step())
        XCTAssertEqual(rows.int64(0), -7)
        XCTAssertEqual(rows.text(1), "text")
        XCTAssertTrue(try rows.step())
        XCTAssertEqual(rows.int64(0), 8)
        XCTAssertEqual(rows.blob(1), [9, 10])
        XCTAssertFalse(try rows.step())
    }

    func testAnEmptyBlobIsStoredAsAnEmptyBlobNotNull() throws {
        let connection = try memory()
        try connection.statement("INSERT INTO t VALUES (1, ?)").bind(1, [UInt8]()).run()
        try connection.run("INSERT INTO t VALUES (2, ?)", [.blob([])])
        let read = try connection.statement("SELECT b, typeof(b), b IS NULL FROM t ORDER BY a")
        for row in 1...2 {
            XCTAssertTrue(try read.step(), "row \(row)")
            XCTAssertFalse(read.isNull(0), "row \(row)")
            XCTAssertEqual(read.blob(0), [], "row \(row)")
            XCTAssertEqual(read.value(0), .blob([]), "row \(row)")
            XCTAssertEqual(read.text(1), "blob", "row \(row)")
            XCTAssertEqual(read.int64(2), 0, "row \(row)")
        }
    }

    func testAReusedStatementWithFewerBindingsLeavesTheRestNull() throws {
        let connection = try memory()
        let insert = "INSERT INTO t VALUES (?, ?)"
        try connection.statement(insert).bind(1, Int64(1)).bind(2, [1, 2, 3] as [UInt8]).run()
        try connection.statement(insert).bind(1, Int64(2)).run()
        try connection.run(insert, [.integer(3), .text("three")])
        try connection.run(insert, [.integer(4)])
        XCTAssertEqual(try connection.query("SELECT a, b FROM t ORDER BY a"), [
            [.integer(1), .blob([1, 2, 3])], [.integer(2), .null], [.integer(3), .text("three")], [.integer(4), .null],
        ])
    }

    func testFirstReadsOneRowAndResets() throws {
        let connection = try memory()
        try connection.execute("INSERT INTO t VALUES (1, 'x'); INSERT INTO t VALUES (2, 'y')")
        let statement = try connection.statement("SELECT b FROM t WHERE a >= ? ORDER BY a")
        XCTAssertEqual(try statement.bind(1, Int64(1)).first { $0.text(0) }, "x")
        XCTAssertEqual(try statement.first { $0.text(0) }, "x", "reset after the read, with the binding kept")
        XCTAssertNil(try connection.statement("SELECT b FROM t WHERE a >= ?").bind(1, Int64(3)).first { $0.text(0) })
    }

    func testARefusedBindFailsTheStepWithItsStatus() throws {
        let connection = try memory()
        let statement = try connection.statement("INSERT INTO t VALUES (?, ?)").bind(3, Int64(1))
        XCTAssertThrowsError(try statement.run()) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, .statementFailed)
            XCTAssertEqual((error as? SQLiteError)?.status, 25, "SQLITE_RANGE")
        }
        XCTAssertEqual(try connection.query("SELECT COUNT(*) FROM t"), [[.integer(0)]], "nothing ran")
        try connection.statement("INSERT INTO t VALUES (?, ?)").bind(1, Int64(1)).run()
        XCTAssertEqual(try connection.query("SELECT COUNT(*) FROM t"), [[.integer(1)]], "the refusal does not outlive a reuse")
    }

    func testAFailedStepCarriesTheStatusAndNoUserData() throws {
        let connection = try memory()
        try connection.execute("CREATE TABLE u(k TEXT PRIMARY KEY)")
        try connection.run("INSERT INTO u VALUES (?)", [.text("secret-key")])
        XCTAssertThrowsError(try connection.run("INSERT INTO u VALUES (?)", [.text("secret-key")])) { error in
            let failure = error as? SQLiteError
            XCTAssertEqual(failure?.code, .statementFailed)
            XCTAssertEqual(failure?.status, 19, "SQLITE_CONSTRAINT")
            XCTAssertEqual(failure?.message, "constraint failed")
            XCTAssertEqual(failure?.description, "SQLiteError(SQ201 statementFailed: status 19 constraint failed)")
            XCTAssertFalse("\(error)".contains("secret") || "\(error)".contains("u.k"), "no value or name in \(error)")
        }
    }
}
