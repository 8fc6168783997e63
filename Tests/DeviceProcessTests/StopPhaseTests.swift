import Foundation
import TestServerSupport
import TestServers
import XCTest

/// SIGINT, SIGTERM and `quit` end `synckernel device` promptly in every phase (waiting for
/// approval, asking to join with nobody online, absorbing a snapshot, exporting one, running,
/// reconnecting), with exit status 0 and the store closed: the next start on the same store works.
final class StopPhaseTests: XCTestCase {
    /// How long a stop may take: the promise (measured here: 10 to 25 ms in most phases, about
    /// 0.8 s while exporting 150,000 rows, the export stopping within a sealed piece; the test fills fewer).
    private static let budget: Duration = .seconds(2)

    /// Rows the snapshot tests fill, so the transfer lasts long enough to be interrupted.
    private static let snapshotRows = 60_000

    /// Stops `device` with `how` (a signal, or nil for `quit`) and checks it exited 0 within the
    /// budget; returns how long it took.
    @discardableResult
    private func assertStops(_ device: DeviceProcess, with how: Int32?, _ phase: String,
                             file: StaticString = #filePath, line: UInt = #line) async -> Duration {
        let asked = ContinuousClock.now
        if let how { device.program.signal(how) } else { device.program.send("quit\n") }
        let status = await device.program.waitForExit(timeout: Self.budget)
        let took = asked.duration(to: .now)
        print("StopPhaseTests: \(device.name) stopped while \(phase) in \(took)")
        XCTAssertEqual(status, 0, "\(device.name) stopped while \(phase) in \(took); its log ends with:\n\(device.program.errors.tail())",
                       file: file, line: line)
        return took
    }

    /// A sign-in credential for the fleet's account.
    private func credential(_ fleet: ProcessFleet) async throws -> String {
        let path = fleet.directory + "/tablet-\(UUID().uuidString).signin"
        let made = try await SynckernelProgram.run(["account", "sign-in-cert", "--dir", fleet.account, "--out", path])
        XCTAssertEqual(made.status, 0, made.errors)
        return path
    }

    /// Device `name` asking to join the fleet's account.
    private func joiner(_ fleet: ProcessFleet, name: String = "tablet", relay: String) async throws -> DeviceProcess {
        let tablet = try await DeviceProcess.launch(name: name, store: fleet.store(name), account: fleet.directory + "/\(name)-account",
                                                    relay: [relay], extra: ["--join", try await credential(fleet)], waitForReady: false)
        addTeardownBlock { await tablet.stop() }
        return tablet
    }

    func testARunningDeviceStopsOnSIGINTSIGTERMAndQuit() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["laptop"])
        let laptop = try await DeviceProcess.launch(name: "laptop", store: fleet.store("laptop"), account: fleet.account, relay: [server.url])
        addTeardownBlock { await laptop.stop() }
        for how in [SIGINT, SIGTERM, nil] {
            _ = try await laptop.demoWrite(10)
            await assertStops(laptop, with: how, "running")
            XCTAssertFalse(laptop.events("stopped").isEmpty, "it reported stopped after closing")
            try await laptop.restart()
        }
    }

    func testADeviceWhoseRelayIsGoneStopsWhileReconnecting() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["laptop"])
        let laptop = try await DeviceProcess.launch(name: "laptop", store: fleet.store("laptop"), account: fleet.account, relay: [server.url])
        addTeardownBlock { await laptop.stop() }
        let connected = await laptop.waitForEvents("connected")
        XCTAssertTrue(connected)
        await server.stop()
        let disconnected = await laptop.waitForEvents("disconnected")
        XCTAssertTrue(disconnected, "the relay went away")
        await assertStops(laptop, with: SIGTERM, "reconnecting")
    }

    func testADeviceAskingToJoinWithNobodyOnlineStops() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["laptop"])
        let tablet = try await joiner(fleet, relay: server.url)
        let sent = await tablet.waitForEvents("join_request_sent")
        XCTAssertTrue(sent)
        await assertStops(tablet, with: SIGINT, "asking to join")
        XCTAssertFalse(FileManager.default.fileExists(atPath: fleet.directory + "/tablet-account"), "nothing was written")
        XCTAssertFalse(FileManager.default.fileExists(atPath: fleet.store("tablet")), "no store was made")
    }

    func testADeviceWaitingForApprovalStopsOnASignalAndOnQuit() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["laptop"])
        let laptop = try await DeviceProcess.launch(name: "laptop", store: fleet.store("laptop"), account: fleet.account, relay: [server.url])
        addTeardownBlock { await laptop.stop() }
        for how in [SIGTERM, nil] {
            let tablet = try await joiner(fleet, relay: server.url)
            let acknowledged = await tablet.waitForEvents("join_acknowledged")
            XCTAssertTrue(acknowledged, "a sibling asks its user; log:\n\(tablet.program.errors.tail())")
            await assertStops(tablet, with: how, "waiting for approval")
            XCTAssertFalse(FileManager.default.fileExists(atPath: fleet.directory + "/tablet-account"), "nothing was written")
        }
    }

    func testBothSidesOfASnapshotTransferStopAndStartAgainOnTheirStores() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["laptop"])
        let laptop = try await DeviceProcess.launch(name: "laptop", store: fleet.store("laptop"), account: fleet.account, relay: [server.url],
                                                    extra: ["--auto-approve"])
        addTeardownBlock { await laptop.stop() }
        laptop.program.send("demo-fill \(Self.snapshotRows)\n")
        let filled = await laptop.waitForEvents("filled", timeout: .seconds(300))
        XCTAssertTrue(filled)

        let tablet = try await joiner(fleet, name: "tablet", relay: server.url)
        let importing = await tablet.waitFor(timeout: .seconds(120)) { lines in
            lines.contains { line in
                guard let object = DeviceProcess.object(line) else { return false }
                return object["event"] as? String == "snapshot_progress" && object["phase"] as? String == "importing"
            }
        }
        XCTAssertTrue(importing, "the tablet is importing; log:\n\(tablet.program.errors.tail())")
        await assertStops(tablet, with: SIGINT, "absorbing")
        XCTAssertTrue(tablet.events("snapshot_absorbed").isEmpty, "the stop came before the import ended")
        let tabletCheck = try await SynckernelProgram.run(["check", "--db", fleet.store("tablet")])
        XCTAssertEqual(tabletCheck.status, 0, "what the import committed is a healthy store: \(tabletCheck.output)")
        let again = try await DeviceProcess.launch(name: "tablet", store: fleet.store("tablet"), account: fleet.directory + "/tablet-account",
                                                   relay: [server.url])
        addTeardownBlock { await again.stop() }
        await assertStops(again, with: nil, "running after an interrupted absorb")

        let asked = laptop.events("snapshot_requested").count
        _ = try await joiner(fleet, name: "phone", relay: server.url)
        let exporting = await laptop.waitForEvents("snapshot_requested", count: asked + 1, timeout: .seconds(120))
        XCTAssertTrue(exporting, "the laptop is asked for a second snapshot; log:\n\(laptop.program.errors.tail())")
        let answered = laptop.events("snapshot_answered").count
        await assertStops(laptop, with: SIGTERM, "exporting")
        XCTAssertEqual(laptop.events("snapshot_answered").count, answered, "the stop came before the export ended")
        let laptopCheck = try await SynckernelProgram.run(["check", "--db", fleet.store("laptop")])
        XCTAssertEqual(laptopCheck.status, 0, "the exporter's store is healthy: \(laptopCheck.output)")
        try await laptop.restart()
        await assertStops(laptop, with: nil, "running after an interrupted export")
    }
}
