import Foundation
import SyncKernel
import XCTest

/// Reads the golden fixtures checked in beside the tests.
enum Fixture {
    /// The bytes on the `label <hex>` line of `Fixtures/<path>.golden`.
    static func bytes(_ path: String, label: String = "encoding") throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/\(path).golden")
        let text = try String(contentsOf: url, encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(label + " ") }),
              let bytes = Hex.decode(String(line.dropFirst(label.count + 1))) else {
            throw FixtureError(description: "no \(label) line in \(path)")
        }
        return bytes
    }

    /// A fixture that does not read.
    struct FixtureError: Error, CustomStringConvertible {
        let description: String
    }
}

/// The helper checked against what it promises: it reads the bytes of a golden line and refuses what does not read, so a broken helper fails on
/// its own instead of making the tests that use it pass or fail for the wrong reason.
final class FixtureSelfTests: XCTestCase {
    func testAFixtureReadsTheBytesOfItsLabelAndRefusesAMissingLabelOrFile() throws {
        let bytes = try Fixture.bytes("transfer/ack_ok")
        XCTAssertEqual(Array(bytes.prefix(4)), Array("SKXF".utf8), "the golden line's hex, decoded")
        XCTAssertThrowsError(try Fixture.bytes("transfer/ack_ok", label: "no-such-label"))
        XCTAssertThrowsError(try Fixture.bytes("transfer/no-such-fixture"))
    }
}
