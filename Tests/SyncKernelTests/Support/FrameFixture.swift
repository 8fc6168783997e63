import Foundation
import SyncKernel
import XCTest

/// The golden frame fixtures under `Fixtures/frames`: one `encoding <hex>` line each, after comments.
enum FrameFixture {
    /// The bytes on the single `encoding <hex>` line of `Fixtures/frames/<name>.golden`.
    static func recordedBytes(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/frames/\(name).golden")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        XCTAssertEqual(lines.count, 1, name)
        let parts = try XCTUnwrap(lines.first).split(separator: " ").map(String.init)
        XCTAssertEqual(parts.first, "encoding", name)
        return try XCTUnwrap(Hex.decode(try XCTUnwrap(parts.last)), name)
    }
}
