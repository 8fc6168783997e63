// The worked example of docs/namespace-authoring.md: the code between the markers is checked
// against the guide by WorkedExampleTests, so the guide cannot drift from code that compiles.
// BEGIN worked-example
import Foundation
import SyncKernel
import SyncKernelTestKit

/// A bookmark, keyed by its URL.
struct Bookmark: Sendable, Hashable {
    var url: String
    var title: String
    var tags: [String]
    var updatedAt: Date
    /// When this device last opened it: per device, never synced.
    var visitedAt: Date?
}

/// Bookmarks: edited on any device, so causal.
enum BookmarksNamespace: SyncNamespace {
    static let name = "bookmarks"

    static let schema = RowSchema<Bookmark>(blank: Bookmark(url: "", title: "", tags: [], updatedAt: .distantPast), key: \.url, [
        .hashed("url", \.url, .text),
        .hashed("title", \.title, .text),
        .hashed("tags", \.tags, .array(.text)),
        .hashed("updatedAt", \.updatedAt, .date),
        .excluded("visitedAt", \.visitedAt, .optional(.date), .perDevice, reason: "each device opens a bookmark at its own times"),
    ])

    static let mergeRule = MergeRule<Bookmark>.causal(changeStamp: \.updatedAt)
}

/// What the conformance kit needs beyond the declaration: how to make a row, and what a device
/// does to a bookmark it receives.
enum BookmarksConformance: NamespaceConformance {
    typealias Namespace = BookmarksNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> Bookmark {
        Bookmark(url: "https://example.org/" + generator.word() + "\(generator.int(0...1_000_000))", title: generator.text(),
                 tags: [generator.word()], updatedAt: generator.date())
    }

    static func received(_ row: Bookmark, at clock: Date) -> Bookmark {
        var bookmark = row
        bookmark.visitedAt = clock
        return bookmark
    }
}
// END worked-example

import XCTest

/// The guide's worked example compiles (it is part of this target), passes the kit, and is
/// printed in the guide exactly as it is here.
final class WorkedExampleTests: XCTestCase {
    func testTheWorkedExamplePassesTheKit() throws {
        try ConformanceSuite.run(BookmarksConformance.self)
    }

    func testTheGuidePrintsTheWorkedExampleVerbatim() throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let source = try String(contentsOf: here.appendingPathComponent("BookmarksNamespace.swift"), encoding: .utf8)
        let guide = try String(contentsOf: here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
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
