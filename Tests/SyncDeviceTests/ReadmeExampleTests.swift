import Foundation
import SyncDevice
import TestServerSupport
import TestServers
import XCTest

/// The README's app example: it runs, and the README shows exactly the code that runs.
final class ReadmeExampleTests: XCTestCase {
    func testTheTenLinesAnAppWritesSyncAndPrintAStatus() async throws {
        let server = try await startNatsServer()
        let world = try DeviceWorld(devices: 2)
        let sibling = SyncDevice(try world.configuration(1, servers: [server.url]))
        addTeardownBlock { await sibling.stop() }
        try await sibling.start()
        let (account, name, store, url) = (world.account.path, world.names[0], world.store(0), server.url)
        let printed = try await withThrowingTaskGroup(of: [String]?.self) { group in
            group.addTask { try await ReadmeExample.run(accountDirectory: account, name: name, storePath: store, relayURL: url) }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        let lines = try XCTUnwrap(printed, "the example did not see its sibling in sync within 60 s")
        XCTAssertEqual(lines.count, 1)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        let notebook = try XCTUnwrap((object["namespaces"] as? [String: Any])?["notebook"] as? [String: Any])
        XCTAssertEqual(notebook["rows"] as? Int, 1)
        let siblings = try XCTUnwrap(object["siblings"] as? [[String: Any]])
        XCTAssertEqual(siblings.map { $0["in_sync"] as? Bool }, [true])
        let theirs = try await sibling.currentStatus()
        XCTAssertEqual(theirs.namespaces, try DeviceStatus(storeAt: store).namespaces, "the sibling holds the note")
    }

    func testTheReadmeShowsTheCodeThatRuns() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let source = try String(contentsOf: tests.appendingPathComponent("ReadmeExample.swift"), encoding: .utf8)
        let readme = try String(contentsOf: tests.appendingPathComponent("../../README.md").standardizedFileURL, encoding: .utf8)
        let lines = source.components(separatedBy: "\n")
        let begin = try XCTUnwrap(lines.firstIndex { $0.hasSuffix("// README:begin") })
        let end = try XCTUnwrap(lines.firstIndex { $0.hasSuffix("// README:end") })
        let indent = lines[begin].prefix { $0 == " " }.count
        let example = lines[(begin + 1)..<end].map { String($0.dropFirst(indent)) }.joined(separator: "\n")
        XCTAssertTrue(readme.contains("```swift\n" + example + "\n```"), "README.md shows ReadmeExample.swift's lines:\n\(example)")
    }
}
