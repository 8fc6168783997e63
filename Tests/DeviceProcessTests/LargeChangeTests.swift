import Foundation
import TestServers
import XCTest

/// Large differences between `synckernel device` processes over one nats-server converge: a
/// 100,000-operation write, 100,000 operations written on each side apart, and a device killed
/// in the middle of taking in a large change. A long run with its own target (`make test-large`,
/// a release build); `make test` leaves this class out. Each checks that no sibling of the same
/// build refused a frame (`SK209`) and no envelope arrived too late (`outsideWindow`).
final class LargeChangeTests: XCTestCase {
    /// Operations per large write (`demo-write`'s largest).
    private static let operations = 100_000
    /// How long a large write or its convergence may take.
    private static let patience: Duration = .seconds(900)

    private func assertNoRefusalOrLateEnvelope(_ devices: [DeviceProcess], file: StaticString = #filePath, line: UInt = #line) {
        for device in devices {
            let log = device.program.errors.lines
            XCTAssertFalse(log.contains { $0.contains("SK209") }, "\(device.name) refused a frame of its sibling", file: file, line: line)
            XCTAssertFalse(log.contains { $0.contains("outsideWindow") }, "\(device.name) dropped late envelopes", file: file, line: line)
        }
    }

    func testAHundredThousandOperationWriteConverges() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["laptop", "phone"])
        let laptop = try await DeviceProcess.launch(name: "laptop", store: fleet.store("laptop"), account: fleet.account, relay: [server.url])
        addTeardownBlock { await laptop.stop() }
        let phone = try await DeviceProcess.launch(name: "phone", store: fleet.store("phone"), account: fleet.account, relay: [server.url])
        addTeardownBlock { await phone.stop() }
        let written = try await phone.demoWrite(Self.operations, timeout: Self.patience)
        XCTAssertEqual(written["count"] as? Int, Self.operations)
        let converged = try await ProcessFleet.waitForConvergence([laptop, phone], timeout: Self.patience)
        XCTAssertTrue(converged, "the laptop's log ends with:\n\(laptop.program.errors.tail())")
        assertNoRefusalOrLateEnvelope([laptop, phone])
    }

    func testAHundredThousandOperationsOnEachSideConverge() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["laptop", "phone"])
        var devices: [DeviceProcess] = []
        for name in ["laptop", "phone"] {
            let device = try await DeviceProcess.launch(name: name, store: fleet.store(name), account: fleet.account, relay: [server.url])
            addTeardownBlock { await device.stop() }
            let written = try await device.demoWrite(Self.operations, timeout: Self.patience)
            XCTAssertEqual(written["count"] as? Int, Self.operations)
            let quit = await device.quit()
            XCTAssertEqual(quit, 0, "written while its sibling was away")
            devices.append(device)
        }
        for device in devices { try await device.restart() }
        let converged = try await ProcessFleet.waitForConvergence(devices, timeout: Self.patience)
        XCTAssertTrue(converged, "the laptop's log ends with:\n\(devices[0].program.errors.tail())")
        let status = try await devices[0].status()
        let notebook = (status["namespaces"] as? [String: Any])?["notebook"] as? [String: Any]
        XCTAssertEqual(notebook?["rows"] as? Int, 2 * (Self.operations - Self.operations / 4), "both sides' notes, each once")
        assertNoRefusalOrLateEnvelope(devices)
    }

    func testADeviceKilledWhileTakingInALargeChangeConvergesAfterARestart() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["laptop", "phone"])
        let phone = try await DeviceProcess.launch(name: "phone", store: fleet.store("phone"), account: fleet.account, relay: [server.url])
        addTeardownBlock { await phone.stop() }
        let written = try await phone.demoWrite(Self.operations, timeout: Self.patience)
        XCTAssertEqual(written["count"] as? Int, Self.operations)
        let laptop = try await DeviceProcess.launch(name: "laptop", store: fleet.store("laptop"), account: fleet.account, relay: [server.url],
                                                    extra: ["--events", "json"])
        addTeardownBlock { await laptop.stop() }
        let taking = await laptop.waitFor(timeout: Self.patience) { lines in
            lines.contains { line in
                guard let object = DeviceProcess.object(line), object["event"] as? String == "applied" else { return false }
                return (object["rows"] as? Int ?? 0) > 0
            }
        }
        XCTAssertTrue(taking, "the laptop takes in rows; log:\n\(laptop.program.errors.tail())")
        await laptop.program.kill()
        try await laptop.restart()
        let converged = try await ProcessFleet.waitForConvergence([laptop, phone], timeout: Self.patience)
        XCTAssertTrue(converged, "the laptop's log ends with:\n\(laptop.program.errors.tail())")
        assertNoRefusalOrLateEnvelope([laptop, phone])
    }
}
