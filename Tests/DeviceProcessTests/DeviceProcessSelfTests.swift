import Foundation
import TestServerSupport
import TestServers
import XCTest

/// `DeviceProcess` drives every process test: check that it reads only JSON object lines, that
/// its commands get the answers they wait for from a real device.
final class DeviceProcessSelfTests: XCTestCase {
    func testOnlyJSONObjectLinesAreObjects() {
        XCTAssertEqual(DeviceProcess.object(#"{"event":"ready","n":1}"#)?["event"] as? String, "ready")
        XCTAssertNil(DeviceProcess.object("synckernel device: started"), "a log line")
        XCTAssertNil(DeviceProcess.object("[1,2]"), "not an object")
        XCTAssertNil(DeviceProcess.object("{not json"), "a broken line")
    }

    func testADeviceAnswersWriteStatusAndQuitThroughTheHelper() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["solo"])
        let device = try await DeviceProcess.launch(name: "solo", store: fleet.store("solo"), account: fleet.account,
                                                    relay: [server.url])
        addTeardownBlock { await device.stop() }
        XCTAssertEqual(device.events("ready").count, 1)
        let written = try await device.demoWrite(4)
        XCTAssertEqual(written["count"] as? Int, 4, "the written line of this command")
        let status = try await device.status()
        let notebook = (status["namespaces"] as? [String: Any])?["notebook"] as? [String: Any]
        XCTAssertEqual(notebook?["rows"] as? Int, 3, "four writes: three inserts and one edit")
        XCTAssertNil(status["event"], "a status answer, not an event")
        let exit = await device.quit()
        XCTAssertEqual(exit, 0)
    }
}
