import Foundation
import NatsRelay
import NotebookNamespace
import SyncDevice
import SyncEnvelope
import SyncKernel
import TestServerSupport
import TestServers
import XCTest

/// The README's app example: it runs, and the README shows exactly the code that runs.
final class ReadmeExampleTests: XCTestCase {
    func testTheLinesAnAppWritesWriteReadObserveSyncAndPrintAStatus() async throws {
        let server = try await startNatsServer()
        let world = try DeviceWorld(devices: 2)
        let sibling = SyncDevice(try world.configuration(1, servers: [server.url]))
        addTeardownBlock { await sibling.stop() }
        try await sibling.start()
        let theirNote = DeviceWorld.note(1)
        try await sibling.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(theirNote) }
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
        XCTAssertEqual(lines.count, 3)
        XCTAssertEqual(lines.prefix(2), ["hello", "2 notes: the sibling's arrived"], "read back, then observed the sibling's note")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data((lines.last ?? "").utf8)) as? [String: Any])
        let notebook = try XCTUnwrap((object["namespaces"] as? [String: Any])?["notebook"] as? [String: Any])
        XCTAssertEqual(notebook["rows"] as? Int, 2)
        let siblings = try XCTUnwrap(object["siblings"] as? [[String: Any]])
        XCTAssertEqual(siblings.map { $0["in_sync"] as? Bool }, [true])
        let theirs = try await sibling.currentStatus()
        XCTAssertEqual(theirs.namespaces, try DeviceStatus(storeAt: store).namespaces, "the sibling holds the note")
    }

    func testTheReadmeShowsTheCodeThatRuns() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let source = try String(contentsOf: tests.appendingPathComponent("ReadmeExampleTests.swift"), encoding: .utf8)
        let readme = try String(contentsOf: tests.appendingPathComponent("../../README.md").standardizedFileURL, encoding: .utf8)
        let lines = source.components(separatedBy: "\n")
        let begin = try XCTUnwrap(lines.firstIndex { $0.hasSuffix("// README:begin") })
        let end = try XCTUnwrap(lines.firstIndex { $0.hasSuffix("// README:end") })
        let indent = lines[begin].prefix { $0 == " " }.count
        let example = lines[(begin + 1)..<end].map { String($0.dropFirst(indent)) }.joined(separator: "\n")
        XCTAssertTrue(readme.contains("```swift\n" + example + "\n```"), "README.md shows the lines of ReadmeExample in ReadmeExampleTests.swift:\n\(example)")
    }
}

/// The README's "ten lines an app writes", compiled here so they cannot rot (a test checks that
/// the README shows exactly the lines between the markers).
enum ReadmeExample {
    /// Runs the README's lines for device `name` of the account at `accountDirectory`, its store at
    /// `storePath`, through the relay at `relayURL`; returns what it printed.
    static func run(accountDirectory: String, name: String, storePath: String, relayURL: String) async throws -> [String] {
        var printed: [String] = []
        func print(_ line: String) { printed.append(line) }
        let noteID = [UInt8](repeating: 7, count: 16)
        // README:begin
        let device = SyncDevice(SyncDeviceConfiguration(account: AccountDirectory(path: accountDirectory), name: name,
                                                        storePath: storePath, namespaces: try NamespaceSet([NotebookNamespace.self]),
                                                        relay: NatsRelayOptions(servers: [relayURL])))
        try await device.start()
        let note = Note(id: noteID, title: "hello", body: "from \(name)", createdAt: .now, updatedAt: .now)
        try await device.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
        let mine = try await device.read(NotebookNamespace.self) { reader throws(SyncKernelError) in try reader.row(forKey: noteID) }
        print(mine?.title ?? "not found")
        for try await count in device.observe(NotebookNamespace.self, { reader throws(SyncKernelError) in try reader.count() }) where count > 1 {
            print("\(count) notes: the sibling's arrived")
            break
        }
        for await status in device.status where status.siblings.allSatisfy(\.inSync) {
            print(status.json())
            break
        }
        await device.stop()
        // README:end
        return printed
    }
}
