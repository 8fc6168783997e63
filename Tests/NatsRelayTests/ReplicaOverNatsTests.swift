import Foundation
import NatsRelay
import SyncKernel
import TestServerSupport
import TestServers
import XCTest

/// Replicas (`ReplicaHost` over `NatsFrameTransport`, SQLite stores in temporary files) converging
/// through a real `nats-server`: one server, a server restart, a device that was offline, and a
/// three-node cluster with each device on its own node.
final class ReplicaOverNatsTests: XCTestCase {
    private let convergence = Duration.seconds(60)
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "synckernel-nats-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func path(_ index: Int) -> String {
        "\(directory)/device-\(index).sqlite"
    }

    /// `count` devices, each on `servers(index)`; their connections all exist before any loop
    /// starts, so every first announce finds every inbox listening.
    private func fleet(_ count: Int, timing: LoopTiming = RelayDevice.fastTiming, events: Recorder<FleetEvent>,
                       servers: (Int) -> [String]) throws -> [RelayDevice] {
        let devices = try (0..<count).map {
            try RelayDevice(index: $0, of: count, path: path($0), servers: servers($0), timing: timing, fleetEvents: events)
        }
        for device in devices {
            addTeardownBlock { await device.stop() }
            try device.start()
        }
        return devices
    }

    /// Waits until every device holds the same digest, re-checking after each replica event.
    private func converged(_ devices: [RelayDevice], events: Recorder<FleetEvent>) async -> Bool {
        await events.wait(timeout: convergence) { _ in
            var digests: [StateDigest] = []
            for device in devices { digests.append(await device.host.stateDigest) }
            return Set(digests.map { $0.encoded() }).count == 1
        }
    }

    func testTwoReplicasConvergeThroughOneServer() async throws {
        let server = try await startNatsServer()
        let events = Recorder<FleetEvent>()
        let devices = try fleet(2, events: events) { _ in [server.url] }
        try await devices[0].writeNotes(Array(0..<20))
        try await devices[1].writeNotes(Array(100..<120))
        let done = await converged(devices, events: events)
        XCTAssertTrue(done, "no convergence; relay counters \(devices.map(\.transport.connection.counters))")
        for device in devices { await device.stop() }
        let expected = Set(Array(0..<20) + Array(100..<120))
        XCTAssertEqual(try RelayDevice.notes(at: path(0)), expected)
        XCTAssertEqual(try RelayDevice.notes(at: path(1)), expected)
        XCTAssertEqual(devices.map(\.transport.malformedPayloads), [0, 0])
    }

    func testAfterAServerRestartTheReconnectAnnounceBringsConvergence() async throws {
        let server = try await startNatsServer()
        let events = Recorder<FleetEvent>()
        // Re-advertisements effectively off: only the announce on reconnect can resume the exchange.
        var timing = RelayDevice.fastTiming
        timing.retryMillis = 600_000
        timing.maxRetryMillis = 600_000
        let devices = try fleet(2, timing: timing, events: events) { _ in [server.url] }
        try await devices[0].writeNotes([1])
        let first = await converged(devices, events: events)
        XCTAssertTrue(first)

        await server.stop()
        let down = await events.wait(timeout: convergence) { seen in
            (0..<2).allSatisfy { index in seen.contains { $0.device == index && $0.isRelay(.disconnected) } }
        }
        XCTAssertTrue(down)
        try await devices[0].writeNotes([2, 3])
        try await devices[1].writeNotes([4])
        // Let the debounced broadcasts fire into the outage (they are dropped, not queued).
        let dropped = await events.wait(timeout: convergence) { _ in
            devices.allSatisfy { $0.transport.connection.counters.dropped(.notConnected) > 0 }
        }
        XCTAssertTrue(dropped)

        try await server.restart()
        let back = await events.wait(timeout: convergence) { seen in
            (0..<2).allSatisfy { index in seen.contains { $0.device == index && $0.isRelay(.reconnected) } }
        }
        XCTAssertTrue(back)
        let again = await converged(devices, events: events)
        XCTAssertTrue(again, "no convergence after the restart")
        for device in devices { await device.stop() }
        let expected: Set<Int> = [1, 2, 3, 4]
        XCTAssertEqual(try RelayDevice.notes(at: path(0)), expected)
        XCTAssertEqual(try RelayDevice.notes(at: path(1)), expected)
    }

    func testADeviceThatWasOfflineCatchesUpWhenItComesBack() async throws {
        let server = try await startNatsServer()
        let events = Recorder<FleetEvent>()
        let devices = try fleet(2, events: events) { _ in [server.url] }
        try await devices[0].writeNotes([1])
        let first = await converged(devices, events: events)
        XCTAssertTrue(first)

        await devices[1].stop()
        try await devices[0].writeNotes([2, 3])
        let back = try RelayDevice(index: 1, of: 2, path: path(1), servers: [server.url], fleetEvents: events)
        addTeardownBlock { await back.stop() }
        try back.start()
        let caughtUp = await converged([devices[0], back], events: events)
        XCTAssertTrue(caughtUp)
        await devices[0].stop()
        await back.stop()
        XCTAssertEqual(try RelayDevice.notes(at: path(1)), [1, 2, 3])
    }

    func testThreeDevicesOnThreeNodesOfAClusterConverge() async throws {
        let cluster = try await startNatsCluster(nodes: 3)
        let events = Recorder<FleetEvent>()
        let devices = try fleet(3, events: events) { [cluster.nodes[$0].url] }
        for device in devices {
            try await device.writeNotes(Array((device.index * 100)..<(device.index * 100 + 10)))
        }
        let done = await converged(devices, events: events)
        XCTAssertTrue(done, "no convergence; relay counters \(devices.map(\.transport.connection.counters))")
        for device in devices { await device.stop() }
        let expected = Set((0..<3).flatMap { index in (index * 100)..<(index * 100 + 10) })
        for index in 0..<3 {
            XCTAssertEqual(try RelayDevice.notes(at: path(index)), expected, "device \(index)")
        }
    }

    func testADeviceFailsOverToAnotherNodeWhenItsNodeStops() async throws {
        let cluster = try await startNatsCluster(nodes: 3)
        let events = Recorder<FleetEvent>()
        let devices = try fleet(2, events: events) { index in
            index == 0 ? [cluster.nodes[0].url, cluster.nodes[1].url] : [cluster.nodes[2].url]
        }
        try await devices[0].writeNotes([1])
        let first = await converged(devices, events: events)
        XCTAssertTrue(first)
        let url = try XCTUnwrap(devices[0].transport.connection.connectedServerURL)
        let node = try XCTUnwrap(cluster.nodes.first { url.hasSuffix(":\($0.port)") })
        await node.stop()
        let movedOn = await events.wait(timeout: convergence) { seen in
            seen.contains { $0.device == 0 && $0.isRelay(.reconnected) }
        }
        XCTAssertTrue(movedOn)
        let now = try XCTUnwrap(devices[0].transport.connection.connectedServerURL)
        XCTAssertFalse(now.hasSuffix(":\(node.port)"), "on another node")
        try await devices[0].writeNotes([2])
        try await devices[1].writeNotes([3])
        let again = await converged(devices, events: events)
        XCTAssertTrue(again)
        for device in devices { await device.stop() }
        for index in 0..<2 { XCTAssertEqual(try RelayDevice.notes(at: path(index)), [1, 2, 3], "device \(index)") }
    }

    func testRejectPayloadsTooShortToNameASender() async throws {
        let server = try await startNatsServer()
        let events = Recorder<FleetEvent>()
        let devices = try fleet(2, events: events) { _ in [server.url] }
        let rogue = try NatsRelayConnection(options: NatsRelayOptions(servers: [server.url]), inbox: "sk.test.rogue")
        addTeardownBlock { rogue.close() }
        let inbox = try NatsFrameTransport.subject(for: devices[0].id)
        let sibling = devices[1].id
        try rogue.publish([UInt8](repeating: 7, count: 32), to: inbox)
        // Same publisher, so it arrives after the short one: once it is refused, the short one was seen.
        try rogue.publish(sibling.publicKey + [0xFF, 0x00], to: inbox)
        let refused = await events.wait(timeout: convergence) { seen in
            seen.contains { event in
                guard event.device == 0, case .replica(.frameRefused(let from, _)) = event.kind else { return false }
                return from == sibling
            }
        }
        XCTAssertTrue(refused)
        XCTAssertEqual(devices[0].transport.malformedPayloads, 1)
    }
}
