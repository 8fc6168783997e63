import Foundation
import NotebookNamespace
import SyncKernel
import SyncKernelSimulator
import XCTest

/// `synckernel inspect` and `synckernel diff` as a user runs them: read-only (the files are left
/// byte for byte as they were, no lease taken), the exit statuses they document, never a crash.
final class InspectDiffCommandTests: XCTestCase {
    private let noteID = [UInt8](repeating: 7, count: 16)

    /// The CLI binary next to the test bundle (`swift build --build-tests` builds both).
    private func binary() throws -> URL {
        let folder = try XCTUnwrap(Bundle.main.executableURL).deletingLastPathComponent()
        let url = folder.appendingPathComponent("synckernel")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            XCTFail("no synckernel binary at \(url.path): build with `swift build --build-tests`")
            throw CocoaError(.fileNoSuchFile)
        }
        return url
    }

    /// Runs `synckernel` with `arguments`; returns its exit status and standard output.
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "never a crash")
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    private func object(_ output: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    }

    /// Two closed stores on files holding one note both devices edited concurrently (a conflict),
    /// converged; returns their paths.
    private func conflictedPair(_ world: TestWorld) throws -> (a: String, b: String) {
        try world.conflictedNotebooks(noteID: noteID, first: "milk", edits: ("milk, \"eggs\"\u{1b}[2J", "milk, bread"))
    }

    /// Every file in `directory` with its bytes.
    private func snapshot(_ directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
        }
        return files
    }

    func testInspectShowsTheRowItsVersionsVectorsWritersAndStampAndWritesNothing() throws {
        let world = try TestWorld()
        let (path, _) = try conflictedPair(world)
        let before = try snapshot(world.directory)
        let (status, output) = try run(["inspect", "--db", path, "--namespace", "notebook", "--key", Hex.encode(noteID), "--json"])
        XCTAssertEqual(status, 0, output)
        let shown = try object(output)
        XCTAssertEqual(shown["held"] as? Bool, true)
        XCTAssertEqual(shown["in_conflict"] as? Bool, true)
        XCTAssertEqual(shown["live_versions"] as? Int, 2)
        let clock = try XCTUnwrap(shown["row_clock"] as? [String: Any])
        XCTAssertEqual(clock["synced_at"] as? Int, 2_000, "the RowClock stamp")
        XCTAssertNotNil(clock["vector"] as? String)
        let versions = try XCTUnwrap(shown["versions"] as? [[String: Any]])
        XCTAssertEqual(versions.count, 1, "one version kept beside the visible row")
        let writers = Set([clock["writer"] as? String, versions.first?["writer"] as? String].compactMap { $0 })
        XCTAssertEqual(writers, [TestWorld.device(0).hex, TestWorld.device(1).hex], "each version names its writer")
        let row = try XCTUnwrap(shown["row"] as? [String: Any])
        let rows = [row["diagnostic"] as? String, (versions.first?["row"] as? [String: Any])?["diagnostic"] as? String].compactMap { $0 }
        XCTAssertTrue(rows.contains { $0.contains("\"milk, \\\"eggs\\\"\\u001b[2J\"") },
                      "row text is escaped, never raw: \(rows)")
        XCTAssertNotEqual(shown["item"] as? String, shown["leaf"] as? String, "a key in conflict has a conflict item")

        let (textStatus, text) = try run(["inspect", "--db", path, "--namespace", "notebook", "--key", Hex.encode(noteID)])
        XCTAssertEqual(textStatus, 0)
        XCTAssertTrue(text.contains("live versions: 2 (in conflict)"), text)
        XCTAssertTrue(text.contains("RowClock stamp (synced_at): 2000"), text)
        XCTAssertFalse(text.contains("\u{1b}"), "no control character reaches the terminal")
        XCTAssertEqual(try snapshot(world.directory), before, "inspect wrote nothing: no file changed or appeared")
    }

    func testInspectExitStatuses() throws {
        let world = try TestWorld()
        let (path, _) = try conflictedPair(world)
        XCTAssertEqual(try run(["inspect", "--db", path, "--namespace", "notebook", "--key", "00ff"]).status, 1, "a key not held")
        XCTAssertEqual(try run(["inspect", "--db", path, "--namespace", "nothing", "--key", "00"]).status, 1, "no such namespace")
        XCTAssertEqual(try run(["inspect", "--db", path, "--namespace", "notebook", "--key", "0g"]).status, 64, "not hexadecimal")
        XCTAssertEqual(try run(["inspect", "--db", path, "--namespace", "notebook", "--key", "abc"]).status, 64, "odd length")
        XCTAssertEqual(try run(["inspect", "--db", path, "--namespace", "notebook"]).status, 64, "no key")
        XCTAssertEqual(try run(["inspect", "--db", path, "--key", "00", "--frobnicate"]).status, 64)
        let text = world.directory + "/notes.txt"
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: text))
        XCTAssertEqual(try run(["inspect", "--db", text, "--namespace", "notebook", "--key", "00"]).status, 2, "not a store")
        XCTAssertEqual(try run(["inspect", "--db", world.directory + "/none", "--namespace", "notebook", "--key", "00"]).status, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.directory + "/none"), "inspect never creates a store")
    }

    func testDiffIsZeroForEqualStoresAndListsTheKeysWhereTheyDifferWithBothLeaves() throws {
        let world = try TestWorld()
        let (a, b) = try conflictedPair(world)
        let before = try snapshot(world.directory)
        let (equal, equalOutput) = try run(["diff", "--db", a, "--db", b, "--json"])
        XCTAssertEqual(equal, 0, equalOutput)
        XCTAssertEqual(try object(equalOutput)["equal"] as? Bool, true)
        XCTAssertEqual(try snapshot(world.directory), before, "diff wrote nothing")

        // A resolves by picking the version it shows: the leaf stays, only the conflict differs.
        let store = try world.store([NotebookNamespace.self], device: 0, path: a)
        try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            let held = try tx.versions(forKey: noteID)
            try tx.resolve(held[0].row, over: held)
        }
        let extra = [UInt8](repeating: 9, count: 16)
        try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Note(id: extra, title: "only on A", body: "", createdAt: .distantPast, updatedAt: .distantPast))
        }
        try store.checkpoint()
        store.close()
        let (status, output) = try run(["diff", "--db", a, "--db", b, "--json"])
        XCTAssertEqual(status, 1, output)
        let diff = try object(output)
        XCTAssertEqual(diff["equal"] as? Bool, false)
        let notebook = try XCTUnwrap((diff["namespaces"] as? [String: Any])?["notebook"] as? [String: Any])
        let keys = try XCTUnwrap(notebook["keys"] as? [[String: Any]])
        XCTAssertEqual(keys.compactMap { $0["key"] as? String }, [noteID, extra].map(Hex.encode))
        let resolved = keys[0]
        let (sideA, sideB) = (try XCTUnwrap(resolved["a"] as? [String: Any]), try XCTUnwrap(resolved["b"] as? [String: Any]))
        XCTAssertEqual(sideA["leaf"] as? String, sideB["leaf"] as? String, "the same content on both sides")
        XCTAssertEqual(sideA["live_versions"] as? Int, 1)
        XCTAssertEqual(sideB["live_versions"] as? Int, 2, "B still holds the conflict A resolved")
        XCTAssertTrue(keys[1]["b"] is NSNull, "a key only A holds")

        let (textStatus, text) = try run(["diff", "--db", a, "--db", b])
        XCTAssertEqual(textStatus, 1)
        XCTAssertTrue(text.contains("namespace notebook: 2 keys differ"), text)
        XCTAssertTrue(text.contains("key \(Hex.encode(extra))"), text)
    }

    func testDiffExitStatuses() throws {
        let world = try TestWorld()
        let (a, _) = try conflictedPair(world)
        XCTAssertEqual(try run(["diff", "--db", a]).status, 64, "one store")
        XCTAssertEqual(try run(["diff", "--db", a, "--db", a, "--db", a]).status, 64, "three stores")
        XCTAssertEqual(try run(["diff", "--db", a, "--db", a]).status, 0, "a store equals itself")
        let text = world.directory + "/notes.txt"
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: text))
        XCTAssertEqual(try run(["diff", "--db", a, "--db", text]).status, 2)
        XCTAssertEqual(try run(["diff", "--db", world.directory + "/none", "--db", a]).status, 2)
        let other = try world.store([NotebookNamespace.self, RecordNamespace.self], device: 3)
        let otherPath = world.directory + "/store-3.sqlite"
        try other.checkpoint()
        other.close()
        let (status, output) = try run(["diff", "--db", a, "--db", otherPath, "--json"])
        XCTAssertEqual(status, 1)
        let records = try XCTUnwrap((try object(output)["namespaces"] as? [String: Any])?["records"] as? [String: Any])
        XCTAssertEqual(records["in_a"] as? Bool, false, "a namespace only one store holds is listed")
        XCTAssertEqual(records["in_b"] as? Bool, true)
    }
}
