import SQLiteStore
import XCTest

/// SQLiteStore's error codes are unique, stable and described without user data.
final class SQLiteErrorTests: XCTestCase {
    private typealias Code = SQLiteError.Code

    /// Every code a release has shipped: a caller may match on any of them.
    private static let shipped = ["SQ101": "openFailed", "SQ102": "walUnavailable", "SQ103": "closed",
                                  "SQ104": "createFailed", "SQ201": "statementFailed"]

    func testEveryCodeIsUniqueStableAndListedInOrder() {
        XCTAssertEqual(Set(Code.all.map(\.rawValue)).count, Code.all.count, "no code string is used twice")
        XCTAssertEqual(Set(Code.all.map(\.name)).count, Code.all.count, "no name is used twice")
        XCTAssertEqual(Code.all.map(\.rawValue), Code.all.map(\.rawValue).sorted(), "all lists the codes in code order")
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: Code.all.map { ($0.rawValue, $0.name) }), Self.shipped)
        XCTAssertEqual(Code.closed.description, "SQ103 closed")
    }

    func testAnErrorSQLiteDidNotReportCarriesTheCodeOnly() throws {
        let connection = try SQLiteConnection<SQLiteError>(path: ":memory:")
        connection.close()
        XCTAssertThrowsError(try connection.execute("SELECT 1")) { error in
            XCTAssertEqual("\(error)", "SQLiteError(SQ103 closed)")
            XCTAssertEqual((error as? SQLiteError)?.status, 0)
        }
    }
}
