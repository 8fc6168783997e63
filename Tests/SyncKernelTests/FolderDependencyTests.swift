import Foundation
import XCTest

/// The folders of Sources/SyncKernel depend one way: each may use the top-level types of the
/// folders before it in `order`, never those after it.
///
/// The check reads the source tree itself: it collects the top-level `struct`, `enum`, `class`,
/// `protocol`, `actor` and `typealias` declarations of every folder, then looks for their names
/// among the identifiers of every file's code (comments and the text of string literals are
/// skipped; interpolations are code).
final class FolderDependencyTests: XCTestCase {
    /// The kernel's folders, each allowed to use only those to its left.
    static let order = ["Support", "Encoding", "Digest", "Merge", "Namespace", "Store", "Reconcile", "Replica"]

    /// One source file of the kernel: the folder it sits in, its path below Sources/SyncKernel, its text.
    private struct SourceFile {
        let folder: String
        let path: String
        let text: String
    }

    /// A lexical token of the code: an identifier, or a brace that opens or closes a scope.
    private enum Token: Equatable {
        case identifier(String)
        case open
        case close
    }

    func testEveryFolderUsesOnlyFoldersToItsLeft() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/SyncKernel").standardizedFileURL
        let files = try Self.sources(under: root)
        XCTAssertGreaterThan(files.count, 50, "the check found the kernel's sources under \(root.path)")
        XCTAssertEqual(Set(files.map(\.folder)), Set(Self.order),
                       "every folder holding kernel sources has its place in the order, and every place a folder")
        let violations = Self.violations(in: files, order: Self.order)
        XCTAssertEqual(violations, [], "\n" + violations.joined(separator: "\n"))
    }

    func testTheCheckNamesTheFileAndTypeThatReachRightAndNothingElse() {
        let files = [
            SourceFile(folder: "Digest", path: "Digest/Index.swift", text: """
                /// Unlike `Listing`, which is not looked at here.
                public struct Index {
                    let label = "a Listing of \\(Bucket.self) ranges", raw = #"a Listing of \\#(Range.self)"#
                    func bucket(_ range: Nested) -> Bucket? { nil }
                }
                """),
            SourceFile(folder: "Reconcile", path: "Reconcile/Range.swift", text: """
                public struct Range { struct Nested {} }
                public struct Listing { let index: Index }
                public typealias Bucket = Range
                """),
            SourceFile(folder: "Replica", path: "Replica/Loop.swift", text: "final class Loop { var nested: Int { 0 } }"),
        ]
        XCTAssertEqual(Self.violations(in: files, order: ["Digest", "Reconcile", "Replica"]), [
            "Digest/Index.swift uses Bucket, declared in Reconcile",
            "Digest/Index.swift uses Range, declared in Reconcile",
        ])
    }

    /// Every `.swift` file below `root`, with the first path component as its folder.
    private static func sources(under root: URL) throws -> [SourceFile] {
        let paths = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        return try paths.filter { $0.hasSuffix(".swift") }.sorted().map { path in
            let folder = path.split(separator: "/").count > 1 ? String(path.split(separator: "/")[0]) : ""
            return SourceFile(folder: folder, path: path,
                              text: try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8))
        }
    }

    /// "<file> uses <type>, declared in <folder>" for every use of a type from a folder to the right.
    private static func violations(in files: [SourceFile], order: [String]) -> [String] {
        let tokens = files.map { tokenize($0.text) }
        var home: [String: String] = [:]
        for (file, tokens) in zip(files, tokens) {
            for name in topLevelDeclarations(tokens) { home[name] = file.folder }
        }
        var found: Set<String> = []
        for (file, tokens) in zip(files, tokens) {
            let rank = order.firstIndex(of: file.folder) ?? -1
            for case .identifier(let name) in tokens {
                guard let folder = home[name], folder != file.folder,
                      (order.firstIndex(of: folder) ?? order.count) > rank else { continue }
                found.insert("\(file.path) uses \(name), declared in \(folder)")
            }
        }
        return found.sorted()
    }

    /// The names declared outside every brace.
    private static func topLevelDeclarations(_ tokens: [Token]) -> [String] {
        let keywords: Set = ["struct", "enum", "class", "protocol", "actor", "typealias"]
        var depth = 0
        var names: [String] = []
        for (index, token) in tokens.enumerated() {
            switch token {
            case .open:
                depth += 1
            case .close:
                depth -= 1
            case .identifier(let word):
                guard depth == 0, keywords.contains(word), index + 1 < tokens.count,
                      case .identifier(let name) = tokens[index + 1] else { continue }
                names.append(name)
            }
        }
        return names
    }

    /// The identifiers and braces of Swift source, skipping comments (nested block comments
    /// included) and the text of string literals (plain, multi-line and raw), but not their
    /// interpolations. Number literals are skipped whole, so `0x9E37` yields no identifier.
    private static func tokenize(_ text: String) -> [Token] {
        enum Context {
            case string(multiline: Bool, hashes: Int)
            case interpolation(parens: Int)
        }
        let bytes = Array(text.utf8)
        func at(_ index: Int) -> UInt8 { index < bytes.count ? bytes[index] : 0 }
        func isHead(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "_") || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7a) }
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        func isBody(_ byte: UInt8) -> Bool { isHead(byte) || isDigit(byte) }
        func hashes(from index: Int) -> Int {
            var count = 0
            while at(index + count) == UInt8(ascii: "#") { count += 1 }
            return count
        }
        let quote = UInt8(ascii: "\"")
        var tokens: [Token] = []
        var stack: [Context] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if case .string(let multiline, let rawHashes) = stack.last {
                let delimiter = multiline ? 3 : 1
                if byte == UInt8(ascii: "\\"), hashes(from: index + 1) == rawHashes, at(index + 1 + rawHashes) == UInt8(ascii: "(") {
                    stack.append(.interpolation(parens: 0))
                    index += 2 + rawHashes
                } else if byte == UInt8(ascii: "\\"), rawHashes == 0 {
                    index += 2
                } else if (0..<delimiter).allSatisfy({ at(index + $0) == quote }), hashes(from: index + delimiter) >= rawHashes {
                    stack.removeLast()
                    index += delimiter + rawHashes
                } else {
                    index += 1
                }
                continue
            }
            if case .interpolation(let parens) = stack.last {
                if byte == UInt8(ascii: "(") {
                    stack[stack.count - 1] = .interpolation(parens: parens + 1)
                } else if byte == UInt8(ascii: ")") {
                    if parens == 0 { stack.removeLast() } else { stack[stack.count - 1] = .interpolation(parens: parens - 1) }
                    index += 1
                    continue
                }
            }
            let rawHashes = hashes(from: index)
            if byte == UInt8(ascii: "/"), at(index + 1) == UInt8(ascii: "/") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            } else if byte == UInt8(ascii: "/"), at(index + 1) == UInt8(ascii: "*") {
                var depth = 0
                repeat {
                    if at(index) == UInt8(ascii: "/"), at(index + 1) == UInt8(ascii: "*") {
                        depth += 1
                        index += 2
                    } else if at(index) == UInt8(ascii: "*"), at(index + 1) == UInt8(ascii: "/") {
                        depth -= 1
                        index += 2
                    } else {
                        index += 1
                    }
                } while depth > 0 && index < bytes.count
            } else if at(index + rawHashes) == quote {
                let multiline = at(index + rawHashes + 1) == quote && at(index + rawHashes + 2) == quote
                stack.append(.string(multiline: multiline, hashes: rawHashes))
                index += rawHashes + (multiline ? 3 : 1)
            } else if isHead(byte) {
                let start = index
                while index < bytes.count, isBody(bytes[index]) { index += 1 }
                tokens.append(.identifier(String(decoding: bytes[start..<index], as: UTF8.self)))
            } else if isBody(byte) {
                while isBody(at(index)) || (at(index) == UInt8(ascii: ".") && isDigit(at(index + 1))) { index += 1 }
            } else {
                if byte == UInt8(ascii: "{") { tokens.append(.open) }
                if byte == UInt8(ascii: "}") { tokens.append(.close) }
                index += 1
            }
        }
        return tokens
    }
}
