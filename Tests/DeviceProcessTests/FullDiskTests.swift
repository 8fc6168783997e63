import Foundation
import TestServerSupport
import TestServers
import XCTest

/// A device whose store's disk fills up: a write answers `SK508 storageFull`, standard error
/// names the store in a sentence, the device keeps running, and once there is room again the
/// next write succeeds. The disk is a 4 MiB tmpfs this test mounts (the tests run as root, as
/// `make test` does here) and unmounts when it ends.
final class FullDiskTests: XCTestCase {
    /// Mounts a tmpfs of `mebibytes` at a new folder and returns it; unmounted at teardown.
    private func smallDisk(mebibytes: Int) async throws -> String {
        let folder = NSTemporaryDirectory() + "synckernel-fulldisk-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let mounted = try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(mebibytes)m", "tmpfs", folder])
        XCTAssertEqual(mounted, 0, "mounting a tmpfs needs root, as `make test` runs here")
        addTeardownBlock {
            _ = try? Self.run("/bin/umount", ["-l", folder])
            try? FileManager.default.removeItem(atPath: folder)
        }
        return folder
    }

    /// Runs `program` with `arguments` to its end; its exit status.
    private static func run(_ program: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Fills the file system holding `folder` with one file; returns its path.
    private func fill(_ folder: String) -> String {
        let path = folder + "/filler"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0x5A, count: 64 * 1_024)
        while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        return path
    }

    func testAFullDiskAnswersWritesWithItsCodeAndAReadableLineAndWritesResumeOnceThereIsRoom() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["laptop"])
        let disk = try await smallDisk(mebibytes: 4)
        let store = disk + "/laptop.sqlite"
        let laptop = try await DeviceProcess.launch(name: "laptop", store: store, account: fleet.account, relay: [server.url])
        addTeardownBlock { await laptop.stop() }
        let before = try await laptop.demoWrite(20)
        XCTAssertEqual(before["count"] as? Int, 20)

        let filler = fill(disk)
        laptop.program.send("demo-write 100000\n")
        let refused = await laptop.waitFor(timeout: .seconds(60)) { lines in
            lines.contains { DeviceProcess.object($0)?["error"] as? String == "SK508" }
        }
        XCTAssertTrue(refused, "the write is refused as storageFull; log:\n\(laptop.program.errors.tail())")
        // Standard error is read apart from standard output: the log line may come a moment later.
        _ = await laptop.program.errors.wait(timeout: .seconds(10)) { lines in lines.contains { $0.contains("SK508 storageFull") } }
        let log = laptop.program.errors.lines.joined(separator: "\n")
        XCTAssertTrue(log.contains("the store \(store) is on a full disk; nothing of it was stored"), log)
        XCTAssertTrue(log.contains("SK508 storageFull"), log)
        XCTAssertFalse(laptop.program.hasExited, "the device keeps running")

        try FileManager.default.removeItem(atPath: filler)
        let after = try await laptop.demoWrite(20)
        XCTAssertEqual(after["count"] as? Int, 20, "writes succeed again once there is room")
        let quit = await laptop.quit()
        XCTAssertEqual(quit, 0)
        let check = try await SynckernelProgram.run(["check", "--db", store])
        XCTAssertEqual(check.status, 0, "the transactions the full disk refused left a healthy store: \(check.output)")
    }
}
