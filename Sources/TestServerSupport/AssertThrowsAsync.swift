import XCTest

/// Asserts that `body` throws and hands the error to `check`, as `XCTAssertThrowsError` does for
/// a call that is `async` (its autoclosure cannot await); a `body` that returns fails the test.
package func assertThrowsAsync<T>(_ body: () async throws -> T, _ message: String = "", file: StaticString = #filePath,
                                  line: UInt = #line, _ check: (any Error) -> Void = { _ in }) async {
    do {
        _ = try await body()
        XCTFail("no error was thrown. \(message)", file: file, line: line)
    } catch {
        check(error)
    }
}
