import Foundation
import SyncKernel
import SyncKernelSimulator
import XCTest
@testable import CloudAnchor

/// The `synckernel backup` and `restore` commands as a user runs them: exit codes per guard, and
/// real SIGKILLs in the middle of a backup and of a restore, at seeded progress points, after
/// which the next run finishes with every file in place and nothing that had landed written again.
final class CommandLineTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try temporaryDirectory()
    }

    /// The CLI binary next to the test bundle (`swift build --build-tests` builds both).
    private func binary() throws -> URL {
        let folder = try XCTUnwrap(Bundle.main.executableURL).deletingLastPathComponent()
        let url = folder.appendingPathComponent("synckernel")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            XCTFail("no synckernel binary at \(url.path): build with `swift build --build-tests`")
            throw CloudError.notFound
        }
        return url
    }

    /// The CLI with `arguments`, its default state files in this test's folder, not started yet.
    private func process(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = directory.appendingPathComponent("state-home").path
        process.environment = environment
        return process
    }

    /// Runs the CLI (its default state files in this test's folder); with `killAfter`, sends
    /// SIGKILL once it has reported that many steps. Returns the exit status, or minus the signal
    /// that ended it.
    @discardableResult
    private func run(_ arguments: [String], killAfter: Int? = nil) throws -> Int32 {
        let process = try process(arguments)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        if let killAfter {
            var seen = ""
            while !seen.split(separator: "\n").contains(where: { Self.step(of: $0) >= killAfter }) {
                let chunk = errors.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                seen += String(decoding: chunk, as: UTF8.self)
            }
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
    }

    /// Runs the CLI to its end; returns the exit status and what it printed on standard output.
    private func runCapturing(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = try process(arguments)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    private static func step(of line: Substring) -> Int {
        guard let colon = line.firstIndex(of: ":"), let slash = line.firstIndex(of: "/") else { return -1 }
        return Int(line[line.index(after: colon)..<slash].trimmingCharacters(in: .whitespaces)) ?? -1
    }

    /// Regular files below `root` by relative path, with their inode (a rewrite changes it).
    private func inodes(_ root: URL) throws -> [String: UInt64] {
        var result: [String: UInt64] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        while let path = enumerator?.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(path).path)
            guard attributes[.type] as? FileAttributeType == .typeRegular, !path.contains(".cloudanchor") else { continue }
            result[path] = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value
        }
        return result
    }

    private func contents(_ root: URL) throws -> [String: Data] {
        try inodes(root).keys.reduce(into: [:]) { $0[$1] = try Data(contentsOf: root.appendingPathComponent($1)) }
    }

    func testKillingTheBackupAndRestoreCommandsMidRunLosesNothingAndRewritesNothingThatLanded() throws {
        var random = SeededGenerator(seed: 5)
        var kills: [Int32] = []
        for round in 0..<3 {
            let source = directory.appendingPathComponent("source\(round)")
            let drive = directory.appendingPathComponent("drive\(round)")
            let target = directory.appendingPathComponent("target\(round)")
            for index in 0..<120 {
                let file = source.appendingPathComponent("d\(index % 7)/f\(index).txt")
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data("round \(round) file \(index) ".utf8 + (0..<(index * 97)).map { UInt8($0 % 251) }).write(to: file)
            }
            let killAt = Int.random(in: 5...100, using: &random)
            let backup = ["backup", "--from", source.path, "--to", "folder:\(drive.path)"]
            kills.append(try run(backup, killAfter: killAt))
            let landed = try inodes(drive.appendingPathComponent("files"))
            XCTAssertEqual(try run(backup), 0, "round \(round): the backup after the kill at \(killAt)")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: drive.path).filter { $0.hasPrefix(".cloudanchor-tmp") }
            XCTAssertEqual(leftovers, [], "round \(round): the killed run's temporary files stayed")
            let afterBackup = try inodes(drive.appendingPathComponent("files"))
            for (path, inode) in landed {
                XCTAssertEqual(afterBackup[path], inode, "round \(round): \(path) was uploaded again")
            }
            XCTAssertEqual(try contents(drive.appendingPathComponent("files")), try contents(source),
                           "round \(round): the drive differs from the source")
            XCTAssertEqual(try Data(contentsOf: drive.appendingPathComponent(markerPath)),
                           try DirectoryScan.scan(source).manifest.encoded(), "round \(round): the manifest")

            let restore = ["restore", "--from", "folder:\(drive.path)", "--to", target.path]
            kills.append(try run(restore, killAfter: killAt))
            let restored = try inodes(target)
            XCTAssertEqual(try run(restore + ["--resume"]), 0, "round \(round): the resume after the kill at \(killAt)")
            let afterRestore = try inodes(target)
            for (path, inode) in restored {
                XCTAssertEqual(afterRestore[path], inode, "round \(round): \(path) was downloaded again")
            }
            XCTAssertEqual(try contents(target), try contents(source), "round \(round): the restore differs from the source")
        }
        XCTAssertTrue(kills.contains(-SIGKILL), "no run was really killed mid-way: \(kills)")
    }

    func testARestoredKernelStoreTakesAFreshDeviceEpochBeforeItsFirstWrite() throws {
        let source = directory.appendingPathComponent("source")
        let target = directory.appendingPathComponent("target")
        try FileManager.default.createDirectory(at: source.appendingPathComponent("app"), withIntermediateDirectories: true)
        try Data("not a store".utf8).write(to: source.appendingPathComponent("app/notes.txt"))
        let path = source.appendingPathComponent("app/store.sqlite").path
        let device = try DeviceKeyPair(seed: [UInt8](repeating: 3, count: 32)).deviceID
        let namespaces = try NamespaceSet([EpochProbeNamespace.self])
        let store = try KernelStore(path: path, namespaces: namespaces, entropy: .seeded(1))
        try store.configureDevice(device)
        try store.write(EpochProbeNamespace.self) { tx throws(SyncKernelError) in try tx.save(.init(id: "k", stamp: 1)) }
        try store.checkpoint()
        store.close()
        let drive = "folder:" + directory.appendingPathComponent("drive").path
        XCTAssertEqual(try run(["backup", "--from", source.path, "--to", drive]), 0)
        XCTAssertEqual(try run(["restore", "--from", drive, "--to", target.path]), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.appendingPathComponent("app/notes.txt-lease").path),
                       "a file that is not a database is not marked")
        let restored = try KernelStore(path: target.appendingPathComponent("app/store.sqlite").path, namespaces: namespaces,
                                       entropy: .seeded(2))
        try restored.configureDevice(device)
        XCTAssertEqual(restored.epochChanges.map(\.reason), [.markedRestored],
                       "the restore marked the store, and its lease from the backup did not undo the mark")
        XCTAssertEqual(restored.deviceEpoch?.number, 1)
        XCTAssertNotEqual(restored.deviceEpoch?.dimension, device, "its next edit counts under a dimension nobody holds")
    }

    func testExitCodesSayWhichGuardStoppedTheRun() throws {
        let source = directory.appendingPathComponent("source")
        let drive = "folder:" + directory.appendingPathComponent("drive").path
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("drive"), withIntermediateDirectories: true)
        for index in 0..<6 { try Data("file \(index)".utf8).write(to: source.appendingPathComponent("f\(index)")) }
        let statePath = directory.appendingPathComponent("backup-state.sqlite").path
        let backup = ["backup", "--from", source.path, "--to", drive, "--state", statePath]
        XCTAssertEqual(try run(["backup", "--from", source.path]), 2, "usage")
        XCTAssertEqual(try run(["restore", "--from", drive, "--to", directory.appendingPathComponent("none").path]), 8,
                       "nothing to restore yet")
        XCTAssertEqual(try run(backup), 0)
        for index in 0..<5 { try FileManager.default.removeItem(at: source.appendingPathComponent("f\(index)")) }
        XCTAssertEqual(try run(backup), 5, "shrink guard")
        XCTAssertEqual(try run(backup + ["--allow-shrink"]), 0)
        let empty = directory.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        XCTAssertEqual(try run(["backup", "--from", empty.path, "--to", drive]), 4, "empty guard")
        let state = try StateStore(path: statePath)
        let holdSet = expectation(description: "hold set")
        Task {
            try await state.setHold(.held(reason: "test"))
            holdSet.fulfill()
        }
        wait(for: [holdSet], timeout: 10)
        XCTAssertEqual(try run(backup), 6, "write hold")
        try Data("FILE 5".utf8).write(to: directory.appendingPathComponent("drive/files/f5"))
        XCTAssertEqual(try run(["restore", "--from", drive, "--to", directory.appendingPathComponent("bad").path]), 11,
                       "a file that does not match the manifest is not placed and the restore is incomplete")
        let missing = "folder:" + directory.appendingPathComponent("missing").path
        XCTAssertEqual(try run(["restore", "--from", missing, "--to", empty.path]), 1, "offline drive")
    }

    /// Issue 14, row 15. Before: `backup` created the `folder:` remote before it looked at the
    /// source, so a mistyped `--from` left an empty remote folder behind (and exited 1 with a bare
    /// `local_io`). Now the source is scanned first: exit 1 naming it, no folder created.
    func testRow15_aBackupFromASourceThatDoesNotExistCreatesNoRemoteFolder() throws {
        let missing = directory.appendingPathComponent("no-such-source")
        let drive = directory.appendingPathComponent("drive-never-created")
        let (status, output) = try runCapturing(["backup", "--from", missing.path, "--to", "folder:" + drive.path])
        XCTAssertEqual(status, 1)
        XCTAssertEqual(output, "backup failed: local_io: no such file or folder: \(missing.path)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: drive.path), "the remote folder was created")
    }

    /// Issue 14, row 12, as the CLI reports it: while another backup holds the remote's lease,
    /// `backup` exits 10 naming the holder and writes nothing.
    func testRow12_aBackupIntoARemoteAnotherBackupHoldsExitsTenNamingTheHolder() async throws {
        let source = directory.appendingPathComponent("source")
        let drive = directory.appendingPathComponent("drive")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: drive, withIntermediateDirectories: true)
        try Data("alpha".utf8).write(to: source.appendingPathComponent("a.txt"))
        let holder = FolderStorage(root: drive)
        let claim = LeaseClaim(owner: "the other backup", token: "other", duration: 600, now: Date())
        guard case .granted(let lease) = try await holder.acquireLease(claim) else { return XCTFail("the test's lease") }
        let busy = try runCapturing(["backup", "--from", source.path, "--to", "folder:" + drive.path])
        XCTAssertEqual(busy.status, 10, busy.output)
        XCTAssertTrue(busy.output.contains("another backup (the other backup) is writing to this location"), busy.output)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: drive.path).filter { !$0.hasPrefix(".cloudanchor-") }, [],
                       "the refused backup wrote something")
        await holder.releaseLease(lease)
        XCTAssertEqual(try runCapturing(["backup", "--from", source.path, "--to", "folder:" + drive.path]).status, 0)
    }

    /// A restore from a drive that lost its whole `files/` folder: seven files are all named; of
    /// twenty-five, the first twenty by path are named and the count of all; exit 11 both times.
    func testARestoreNamesEveryMissingFileOrTheFirstTwentyAndTheCount() throws {
        for count in [7, 25] {
            let source = directory.appendingPathComponent("source-\(count)")
            let driveFolder = directory.appendingPathComponent("drive-\(count)")
            let paths = (0..<count).map { String(format: "f%02d.txt", $0) }
            try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
            for path in paths { try Data(path.utf8).write(to: source.appendingPathComponent(path)) }
            XCTAssertEqual(try runCapturing(["backup", "--from", source.path, "--to", "folder:" + driveFolder.path]).status, 0)
            try FileManager.default.removeItem(at: driveFolder.appendingPathComponent("files"))
            let target = directory.appendingPathComponent("target-\(count)")
            let restored = try runCapturing(["restore", "--from", "folder:" + driveFolder.path, "--to", target.path])
            XCTAssertEqual(restored.status, 11, restored.output)
            let named = restored.output.split(separator: "\n").filter { $0.hasPrefix("restore incomplete: missing from the backup: ") }
            XCTAssertEqual(named.map { String($0.dropFirst("restore incomplete: missing from the backup: ".count)) },
                           Array(paths.prefix(20)), restored.output)
            let summary = count > 20 ? "restore incomplete: 25 entries not in place (25 missing from the backup); the first 20 by path are named"
                : "restore incomplete: 7 entries not in place (7 missing from the backup)"
            XCTAssertTrue(restored.output.contains(summary + "\n"), restored.output)
            XCTAssertFalse(restored.output.contains("completed"), "never success over missing data")
        }
    }

    /// The outcomes of issue 14's rows as the CLI reports them: a FIFO is a warning and exit 0, a
    /// damaged file names itself with exit 11, a damaged manifest is exit 12 with nothing
    /// written, conflicts are exit 13 with nothing written and `--overwrite` replaces them.
    func testTheCommandsNameWhatIsMissingAndSayWhatToDo() throws {
        let source = directory.appendingPathComponent("source")
        let driveFolder = directory.appendingPathComponent("drive")
        let drive = "folder:" + driveFolder.path
        try FileManager.default.createDirectory(at: source.appendingPathComponent("d"), withIntermediateDirectories: true)
        try Data("alpha".utf8).write(to: source.appendingPathComponent("a.txt"))
        try Data("beta".utf8).write(to: source.appendingPathComponent("d/b.txt"))
        XCTAssertEqual(mkfifo(source.path + "/d/pipe", 0o644), 0)
        let backup = try runCapturing(["backup", "--from", source.path, "--to", drive])
        XCTAssertEqual(backup.status, 0, backup.output)
        XCTAssertTrue(backup.output.hasPrefix("backup: completed: 2 files, 0 links and 1 folders"), backup.output)

        let target = directory.appendingPathComponent("target")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: target.appendingPathComponent("a.txt"))
        let refused = try runCapturing(["restore", "--from", drive, "--to", target.path])
        XCTAssertEqual(refused.status, 13, refused.output)
        XCTAssertTrue(refused.output.contains("restore refused: a.txt holds a different file"), refused.output)
        XCTAssertEqual(try String(contentsOf: target.appendingPathComponent("a.txt"), encoding: .utf8), "mine")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.appendingPathComponent("d").path), "something was written")

        try Data("BETA".utf8).write(to: driveFolder.appendingPathComponent("files/d/b.txt"))
        let damaged = try runCapturing(["restore", "--from", drive, "--to", target.path, "--overwrite"])
        XCTAssertEqual(damaged.status, 11, damaged.output)
        XCTAssertTrue(damaged.output.contains("restore incomplete: damaged in the backup: d/b.txt"), damaged.output)
        XCTAssertEqual(try String(contentsOf: target.appendingPathComponent("a.txt"), encoding: .utf8), "alpha")
        XCTAssertEqual(try runCapturing(["backup", "--from", source.path, "--to", drive]).status, 0)
        let resumed = try runCapturing(["restore", "--from", drive, "--to", target.path, "--resume"])
        XCTAssertEqual(resumed.status, 0, resumed.output)
        XCTAssertEqual(try String(contentsOf: target.appendingPathComponent("d/b.txt"), encoding: .utf8), "beta")

        try Data("garbage".utf8).write(to: driveFolder.appendingPathComponent(markerPath))
        let other = directory.appendingPathComponent("other")
        let broken = try runCapturing(["restore", "--from", drive, "--to", other.path])
        XCTAssertEqual(broken.status, 12, broken.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: other.path), "a damaged manifest wrote something")
    }
}


/// A causal namespace of the smallest rows, for the restore test's store.
private enum EpochProbeNamespace: SyncNamespace {
    struct Row: Sendable, Hashable {
        var id: String
        var stamp: Int64
    }

    static let name = "probe"
    static let schema = RowSchema<Row>(blank: Row(id: "", stamp: 0), key: \.id, [
        .hashed("id", \.id, .text), .hashed("stamp", \.stamp, .int64),
    ])
    static let mergeRule = MergeRule<Row>.causal(changeStamp: \.stamp)
}
