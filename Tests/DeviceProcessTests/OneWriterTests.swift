import Foundation
import TestServerSupport
import TestServers
import XCTest

/// One process per store: a second `synckernel device` on a store another one runs on, through
/// the same path, a symbolic link or a hard link, is refused at once with exit status 3 naming the
/// store and the holder's pid, and writes nothing; read-only commands work beside the running
/// device; a device killed with SIGKILL never blocks the next start.
final class OneWriterTests: XCTestCase {
    /// The bytes of the store's own files (database, WAL, lease, seen sets).
    private func storeFiles(_ path: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal", "-lease", "-seen", "-signin-seen"] {
            files[suffix] = FileManager.default.contents(atPath: path + suffix)
        }
        return files
    }

    /// A nats-server, an account with a laptop, and the laptop running on its store; the server
    /// and the account's folder live until the test's teardown.
    private func runningLaptop() async throws -> (NatsServerProcess, ProcessFleet, DeviceProcess) {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["laptop"])
        let laptop = try await DeviceProcess.launch(name: "laptop", store: fleet.store("laptop"), account: fleet.account,
                                                    relay: [server.url])
        addTeardownBlock {
            await laptop.stop()
            withExtendedLifetime((server, fleet)) {}
        }
        return (server, fleet, laptop)
    }

    func testASecondDeviceOnTheSameStoreThroughAnyPathIsRefusedAndWritesNothing() async throws {
        let (server, fleet, laptop) = try await runningLaptop()
        let path = laptop.store
        _ = try await laptop.demoWrite(20)
        let symbolic = fleet.directory + "/symbolic.sqlite"
        let hard = fleet.directory + "/hard.sqlite"
        try FileManager.default.createSymbolicLink(atPath: symbolic, withDestinationPath: path)
        try FileManager.default.linkItem(atPath: path, toPath: hard)
        let before = storeFiles(path)
        for other in [path, symbolic, hard] {
            let second = try await DeviceProcess.launch(name: "laptop", store: other, account: fleet.account, relay: [server.url],
                                                        waitForReady: false)
            addTeardownBlock { await second.stop() }
            let status = await second.program.waitForExit(timeout: .seconds(30))
            XCTAssertEqual(status, 3, "refused with the documented status through \(other)")
            let log = String(decoding: second.program.errorBytes, as: UTF8.self)
            XCTAssertTrue(log.contains("SK507 storeInUse"), log)
            XCTAssertTrue(log.contains("the store \(other) is open for writing in another process"), log)
            XCTAssertTrue(log.contains("held by process \(laptop.program.pid)"), "the holder's pid: \(log)")
            XCTAssertTrue(second.events("ready").isEmpty, "the second device never started")
        }
        XCTAssertEqual(storeFiles(path), before, "the refused devices wrote nothing")
        XCTAssertFalse(laptop.program.hasExited)
        let answer = try await laptop.demoWrite(5)
        XCTAssertEqual(answer["count"] as? Int, 5, "the first device keeps writing")
    }

    func testReadOnlyCommandsWorkBesideARunningDevice() async throws {
        let (_, _, laptop) = try await runningLaptop()
        let path = laptop.store
        _ = try await laptop.demoWrite(50)
        let status = try await SynckernelProgram.run(["status", "--db", path, "--json"])
        XCTAssertEqual(status.status, 0, status.errors)
        XCTAssertTrue(status.output.contains("\"notebook\""), status.output)
        let check = try await SynckernelProgram.run(["check", "--db", path])
        XCTAssertEqual(check.status, 0, check.errors)
        let inspect = try await SynckernelProgram.run(["inspect", "--db", path, "--namespace", "notebook", "--key", "00"])
        XCTAssertEqual(inspect.status, 1, "inspect reads beside the device (a key the store does not hold): \(inspect.errors)")
        let diff = try await SynckernelProgram.run(["diff", "--db", path, "--db", path])
        XCTAssertEqual(diff.status, 0, diff.errors)
        let repair = try await SynckernelProgram.run(["check", "--db", path, "--repair"])
        XCTAssertEqual(repair.status, 3, "a repair writes, so it is refused beside the device")
        XCTAssertTrue((repair.output + repair.errors).contains("SK507"), repair.output + repair.errors)
        XCTAssertFalse(laptop.program.hasExited)
    }

    func testTheNextStartAfterSIGKILLSucceeds() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["laptop"])
        let laptop = try await DeviceProcess.launch(name: "laptop", store: fleet.store("laptop"), account: fleet.account,
                                                    relay: [server.url])
        addTeardownBlock { await laptop.stop() }
        let written = try await laptop.demoWrite(30)
        await laptop.program.kill()
        try await laptop.restart()
        let status = try await laptop.status()
        let rows = (status["namespaces"] as? [String: [String: Any]])?["notebook"]?["rows"] as? Int
        XCTAssertEqual(rows, written["inserted"] as? Int, "every acknowledged insert is there after the kill")
        let quit = await laptop.quit()
        XCTAssertEqual(quit, 0)
    }
}
