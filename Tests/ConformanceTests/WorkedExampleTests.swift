import Foundation
import SyncKernelTestKit
import XCTest

/// The guide's worked example compiles (it is part of this target), passes the kit, and is
/// printed in the guide exactly as it is here.
final class WorkedExampleTests: XCTestCase {
    func testTheWorkedExamplePassesTheKit() throws {
        try ConformanceSuite(BookmarksConformance.self, seed: 1).run()
    }

    func testTheGuidePrintsTheWorkedExampleVerbatim() throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let source = try String(contentsOf: here.appendingPathComponent("WorkedExample/BookmarksNamespace.swift"), encoding: .utf8)
        let guide = try String(contentsOf: here.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/namespace-authoring.md"), encoding: .utf8)
        let code = try XCTUnwrap(section(of: source, from: "// BEGIN worked-example\n", to: "// END worked-example"))
        let printed = try XCTUnwrap(section(of: guide, from: "<!-- worked-example -->\n```swift\n", to: "```\n<!-- /worked-example -->"),
                                    "the guide lost its worked-example block")
        XCTAssertEqual(printed, code, "docs/namespace-authoring.md and WorkedExample/BookmarksNamespace.swift differ")
    }

    private func section(of text: String, from start: String, to end: String) -> String? {
        guard let lower = text.range(of: start), let upper = text.range(of: end, range: lower.upperBound..<text.endIndex) else {
            return nil
        }
        return String(text[lower.upperBound..<upper.lowerBound])
    }
}
