import Foundation
import NotebookNamespace
import SyncKernel
import TestServers
import XCTest

/// An account made with the `synckernel account` commands in a private temporary folder, and the
/// checks the process tests share: convergence read through `status`, acknowledged writes found
/// in the stores, and the stores' state read by `synckernel status` and `check`.
final class ProcessFleet: Sendable {
    let directory: String
    let account: String

    /// An account with devices `names` (each added with `synckernel account add-device`).
    init(devices names: [String]) async throws {
        directory = NSTemporaryDirectory() + "synckernel-process-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        account = directory + "/account"
        let created = try await SynckernelProgram.run(["account", "create", "--dir", account])
        guard created.status == 0 else { throw ProcessFleetError.command("account create", created.errors) }
        for name in names {
            let added = try await SynckernelProgram.run(["account", "add-device", "--dir", account, "--name", name])
            guard added.status == 0 else { throw ProcessFleetError.command("account add-device", added.errors) }
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The store path of device `name`.
    func store(_ name: String) -> String { "\(directory)/\(name).sqlite" }

    /// A status's `namespaces` object as its exact JSON bytes (keys sorted).
    static func namespaces(_ status: [String: Any]) -> String {
        guard let namespaces = status["namespaces"],
              let data = try? JSONSerialization.data(withJSONObject: namespaces, options: [.sortedKeys]) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Whether every status shows the same namespaces and every other device as a sibling in sync.
    static func converged(_ statuses: [[String: Any]]) -> Bool {
        guard Set(statuses.map(namespaces)).count == 1 else { return false }
        return statuses.allSatisfy { status in
            let siblings = status["siblings"] as? [[String: Any]] ?? []
            return siblings.count == statuses.count - 1 && siblings.allSatisfy { $0["in_sync"] as? Bool == true }
        }
    }

    /// Asks every device for its status until they converged or `timeout` passed; between two
    /// rounds of questions it waits for any device's next output line, at most half a second.
    static func waitForConvergence(_ devices: [DeviceProcess], timeout: Duration = .seconds(60)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            var statuses: [[String: Any]] = []
            for device in devices { statuses.append(try await device.status()) }
            if converged(statuses) { return true }
            guard ContinuousClock.now < deadline else { return false }
            await anyOutput(devices, within: .milliseconds(500))
        }
    }

    /// Returns once any device printed another line, or after `limit`.
    private static func anyOutput(_ devices: [DeviceProcess], within limit: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            for device in devices {
                let output = device.program.output
                let seen = output.lines.count
                group.addTask { _ = await output.wait(timeout: limit) { $0.count > seen } }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// The titles of the notes in the store at `path` (read after its device exited).
    static func titles(at path: String) throws -> [String] {
        let store = try KernelStore(path: path, namespaces: NamespaceSet([NotebookNamespace.self]))
        defer { store.close() }
        return try store.rows(NotebookNamespace.self).map(\.title)
    }

    /// Checks that the store at `path` holds every note each `written` answer acknowledged, and
    /// nothing else.
    static func assertHoldsEveryAcknowledgedWrite(_ path: String, _ acknowledged: [[String: Any]],
                                                  file: StaticString = #filePath, line: UInt = #line) throws {
        let titles = try Self.titles(at: path)
        let held = Set(titles)
        var expected = 0
        for answer in acknowledged {
            let batch = try XCTUnwrap(answer["batch"] as? String, file: file, line: line)
            let inserted = try XCTUnwrap(answer["inserted"] as? Int, file: file, line: line)
            XCTAssertEqual(answer["interrupted"] as? Bool, false, file: file, line: line)
            let missing = (0..<inserted).filter { !held.contains("demo \(batch) \($0)") }
            XCTAssertEqual(missing.count, 0, "\(path): \(missing.count) acknowledged notes of batch \(batch) missing", file: file, line: line)
            expected += inserted
        }
        XCTAssertEqual(titles.count, expected, "\(path) holds the acknowledged notes and nothing else", file: file, line: line)
    }

    /// `synckernel status --db PATH --json` of every store: their `namespaces` objects, byte for byte.
    static func statusesFromFiles(_ paths: [String], file: StaticString = #filePath, line: UInt = #line) async throws -> [String] {
        var objects: [String] = []
        for path in paths {
            let result = try await SynckernelProgram.run(["status", "--db", path, "--json"])
            XCTAssertEqual(result.status, 0, result.errors, file: file, line: line)
            let object = try XCTUnwrap(DeviceProcess.object(result.output.trimmingCharacters(in: .newlines)), file: file, line: line)
            XCTAssertNotNil(object["device"] as? String, file: file, line: line)
            objects.append(try XCTUnwrap(printedObject("namespaces", in: result.output), file: file, line: line))
        }
        return objects
    }

    /// The text of the object under `key` exactly as `output` printed it (its keys and values
    /// hold no braces: names, numbers and hex).
    static func printedObject(_ key: String, in output: String) -> String? {
        guard let start = output.range(of: "\"\(key)\":{") else { return nil }
        var depth = 0
        var end = start.upperBound
        for index in output[output.index(before: start.upperBound)...].indices {
            switch output[index] {
            case "{": depth += 1
            case "}": depth -= 1
            default: break
            }
            if depth == 0 {
                end = output.index(after: index)
                break
            }
        }
        return depth == 0 ? String(output[output.index(before: start.upperBound)..<end]) : nil
    }

    /// Whether `synckernel check` calls the store at `path` healthy.
    static func isHealthy(_ path: String) async throws -> Bool {
        try await SynckernelProgram.run(["check", "--db", path]).status == 0
    }
}

/// A `synckernel account` command that failed while setting up a fleet.
enum ProcessFleetError: Error {
    case command(String, String)
}
