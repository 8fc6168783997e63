import Foundation
import SyncKernel

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
