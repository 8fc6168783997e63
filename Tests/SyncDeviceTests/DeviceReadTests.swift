import Foundation
import NotebookNamespace
import SyncDevice
import SyncKernel
import MessagesNamespace
import TestServerSupport
import TestServers
import XCTest

/// `SyncDevice.read`: typed reads of a namespace that work before a start (a typed error while
/// there is no store), while the device runs, after a failed start and after a stop.
final class DeviceReadTests: XCTestCase {
    private func count(_ device: SyncDevice) async throws(SyncKernelError) -> Int {
        try await device.read(NotebookNamespace.self) { reader throws(SyncKernelError) in try reader.count() }
    }

    func testReadsWorkWhetherOrNotTheDeviceRuns() async throws {
        let server = try await startNatsServer()
        let world = try DeviceWorld(devices: 1)
        let device = SyncDevice(try world.configuration(0, servers: [server.url]))
        addTeardownBlock { await device.stop() }
        do {
            _ = try await count(device)
            XCTFail("no store yet")
        } catch {
            XCTAssertEqual(error.code, .notAStore)
        }
        try await device.start()
        let empty = try await count(device)
        XCTAssertEqual(empty, 0)
        for batch in 0..<3 {
            try await device.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
                for index in (batch * 10)..<(batch * 10 + 10) { try tx.save(DeviceWorld.note(index)) }
            }
            let counted = try await count(device)
            XCTAssertEqual(counted, batch * 10 + 10, "every write that returned is read")
        }
        let key = DeviceWorld.note(12).id
        let (row, page) = try await device.read(NotebookNamespace.self) { reader throws(SyncKernelError) in
            (try reader.row(forKey: key), try reader.rows(limit: 4))
        }
        XCTAssertEqual(row?.title, "note 12")
        XCTAssertEqual(page.rows.count, 4)
        XCTAssertNotNil(page.next)
        do {
            _ = try await device.read(MessagesNamespace.self) { reader throws(SyncKernelError) in try reader.count() }
            XCTFail("a namespace the device does not sync")
        } catch {
            XCTAssertEqual(error.code, .unknownNamespace)
        }
        await device.stop()
        do {
            _ = try await device.pendingChanges(NotebookNamespace.self)
            XCTFail("pending changes live in the running replica")
        } catch {
            XCTAssertEqual((error as? SyncDeviceError)?.code, .deviceNotRunning)
        }
        let afterStop = try await count(device)
        XCTAssertEqual(afterStop, 30, "read after the stop")

        var broken = try world.configuration(0, servers: [server.url])
        broken.relay = NatsRelayOptions(servers: ["not a url"])
        let unstarted = SyncDevice(broken)
        do {
            try await unstarted.start()
            XCTFail("the relay options are refused")
        } catch {
            XCTAssertEqual((error as? RelayError)?.code, .invalidRelayConfiguration)
        }
        let afterFailedStart = try await count(unstarted)
        XCTAssertEqual(afterFailedStart, 30, "read after a failed start")
    }
}
