import Foundation
import NotebookNamespace
import SyncDevice
import TestServerSupport
import XCTest

/// `SyncDevice` over a `Relay` that is not NATS: two devices in one process sync through a
/// `LocalRelay` with no server, survive the relay going away and coming back, and announce no
/// short form the relay does not have.
final class LocalRelayDeviceTests: XCTestCase {
    private let deadline = Duration.seconds(30)

    /// Two devices of one account, both on `relay`; their folder lasts until the test ends.
    private func pair(on relay: LocalRelay) throws -> (devices: [SyncDevice], logs: [Recorder<SyncDeviceEvent>]) {
        let world = try DeviceWorld(devices: 2)
        addTeardownBlock { withExtendedLifetime(world) {} }
        let devices = try (0..<2).map { index in
            var configuration = try world.configuration(index, servers: [])
            configuration.relay = relay
            let device = SyncDevice(configuration)
            addTeardownBlock { await device.stop() }
            return device
        }
        return (devices, devices.map { Recorder($0.events) })
    }

    /// Waits until `device` holds `count` notes, re-reading after every commit it reports.
    private func waitForNotes(_ count: Int, on device: SyncDevice) async throws -> Bool {
        let counts = device.observe(NotebookNamespace.self) { reader throws(SyncKernelError) in try reader.count() }
        return try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                for try await held in counts where held == count { return true }
                return false
            }
            group.addTask { [deadline] in
                try await Task.sleep(for: deadline)
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private func write(_ indexes: Range<Int>, on device: SyncDevice) async throws {
        for index in indexes {
            let note = DeviceWorld.note(index)
            try await device.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
        }
    }

    func testTwoDevicesSyncThroughALocalRelayWithNoServer() async throws {
        let relay = LocalRelay()
        let (devices, logs) = try pair(on: relay)
        for device in devices { try await device.start() }
        try await write(0..<10, on: devices[0])
        try await write(100..<110, on: devices[1])
        for device in devices {
            let arrived = try await waitForNotes(20, on: device)
            XCTAssertTrue(arrived, "every note on both devices; events \(logs[0].items)")
        }
        XCTAssertTrue(logs[0].items.contains(.relayConnected))
        let status = try await devices[0].currentStatus()
        XCTAssertEqual(status.live?.relay, .connected)
        for log in logs {
            let announced = log.items.compactMap { event -> [String]? in
                guard case .siblingCapabilities(_, let capabilities) = event else { return nil }
                return capabilities
            }
            XCTAssertFalse(announced.isEmpty, "the sibling announced itself")
            XCTAssertFalse(announced.joined().contains(NatsRelayConnection.shortFormCapability),
                           "a relay without a short form announces none: \(announced)")
        }
    }

    func testWritesMadeWhileTheRelayIsAwayArriveAfterItComesBack() async throws {
        let relay = LocalRelay()
        let (devices, logs) = try pair(on: relay)
        for device in devices { try await device.start() }
        try await write(0..<3, on: devices[0])
        let first = try await waitForNotes(3, on: devices[1])
        XCTAssertTrue(first)

        relay.setReachable(false)
        try await write(3..<8, on: devices[0])
        let away = try await devices[0].currentStatus()
        XCTAssertEqual(away.live?.relay, .reconnecting)
        relay.setReachable(true)
        let after = try await waitForNotes(8, on: devices[1])
        XCTAssertTrue(after, "the digest loop brought what was written while the relay was away; events \(logs[1].items)")
        XCTAssertTrue(logs[0].items.contains(.relayDisconnected))
        XCTAssertTrue(logs[0].items.contains(.relayReconnected))
    }
}
