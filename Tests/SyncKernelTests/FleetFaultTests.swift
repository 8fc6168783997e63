import SyncKernel
import SyncKernelSimulator
import XCTest

/// The faults the soak harness drives through `Fleet` and `InProcessRelay`: crashes that restart
/// from the store file, partitions that heal.
final class FleetFaultTests: XCTestCase {
    /// Three replicas over files whose paths the test keeps, to reopen after a crash.
    private func fleet(_ world: TestWorld, paths: [String]) throws -> Fleet {
        let devices = paths.indices.map(TestWorld.device)
        let replicas = try paths.indices.map { index in
            try Replica(device: devices[index], account: world.account, siblings: devices,
                        store: world.store(device: nil, path: paths[index]))
        }
        return Fleet(replicas: replicas, conditions: RelayConditions(), seed: 3)
    }

    private func reopened(_ world: TestWorld, _ index: Int, path: String, of fleet: Fleet) throws -> Replica {
        try Replica(device: TestWorld.device(index), account: world.account, siblings: fleet.replicas.map(\.device),
                    store: world.store(device: nil, path: path))
    }

    func testACrashBetweenAWriteAndItsDigestLosesNothingOnceTheDeviceRestarts() throws {
        let world = try TestWorld()
        let paths = (0..<3).map { world.path("device-\($0)") }
        let fleet = try fleet(world, paths: paths)
        fleet.announceAll()
        fleet.run(until: 1_000)
        try fleet.save(.init(id: "kept", value: "written, then the process died", updatedAt: 1), on: 0)
        let crashedAt = fleet.now
        fleet.crash(0)
        fleet.reconnect(0)
        fleet.run(until: 20_000)
        XCTAssertEqual(fleet.crashed, [0], "reconnecting a crashed replica does not start it")
        XCTAssertFalse(fleet.sent.contains { $0.time >= crashedAt && $0.from == fleet.replicas[0].device },
                       "a crashed replica sends nothing: no announcement, and its scheduled digest never goes out")
        XCTAssertNil(try fleet.replicas[1].store.row(RecordNamespace.self, key: Array("kept".utf8)))
        XCTAssertThrowsError(try fleet.save(.init(id: "late", value: "", updatedAt: 2), on: 0), "its store is closed")

        fleet.restart(0, with: try reopened(world, 1, path: world.path(), of: fleet))
        XCTAssertEqual(fleet.crashed, [0], "a replica of another device is not a restart")
        fleet.restart(0, with: try reopened(world, 0, path: paths[0], of: fleet))
        XCTAssertTrue(fleet.crashed.isEmpty)
        fleet.run(until: 60_000)
        XCTAssertTrue(fleet.allRootsMatch)
        for index in 1...2 {
            XCTAssertEqual(try fleet.replicas[index].store.row(RecordNamespace.self, key: Array("kept".utf8))?.value,
                           "written, then the process died")
        }
    }

    func testARelayPartitionLosesFramesAcrossTheCutOnlyUntilItHeals() {
        let (a, b, c) = (TestWorld.device(0), TestWorld.device(1), TestWorld.device(2))
        var relay = InProcessRelay(conditions: RelayConditions(latencyMillis: 10), seed: 1)
        for device in [a, b, c] { relay.subscribe(device) }
        relay.publish(from: a, to: b, kind: "heartbeat", frame: [1], now: 0)
        relay.partition([[a], [b, c]])
        XCTAssertFalse(relay.reaches(from: a, to: b))
        XCTAssertTrue(relay.reaches(from: b, to: c))
        relay.publish(from: b, to: c, kind: "heartbeat", frame: [2], now: 1)
        relay.publish(from: c, to: a, kind: "heartbeat", frame: [3], now: 1)
        XCTAssertEqual(relay.nextDelivery(upTo: 100)?.frame, [2], "a frame published before the cut, arriving after, is lost")
        XCTAssertNil(relay.nextDelivery(upTo: 100))
        XCTAssertEqual(relay.traffic[InProcessRelay.Link(from: a, to: b)]?.lost, 1)
        XCTAssertEqual(relay.traffic[InProcessRelay.Link(from: c, to: a)]?.lost, 1)
        relay.heal()
        relay.publish(from: c, to: a, kind: "heartbeat", frame: [4], now: 200)
        XCTAssertEqual(relay.nextDelivery(upTo: 300)?.frame, [4])
    }

    func testAPartitionedFleetConvergesAfterTheHealWithoutAnyoneAnnouncing() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(3)
        fleet.announceAll()
        fleet.run(until: 1_000)
        fleet.partition([[0], [1, 2]])
        try fleet.save(.init(id: "left", value: "0", updatedAt: 1), on: 0)
        try fleet.save(.init(id: "right", value: "1", updatedAt: 1), on: 1)
        fleet.run(until: 15_000)
        XCTAssertFalse(fleet.allRootsMatch, "nothing crosses the cut")
        XCTAssertEqual(try fleet.replicas[2].store.row(RecordNamespace.self, key: Array("right".utf8))?.value, "1",
                       "the side that holds together still syncs")
        let heartbeats = fleet.frames(kind: "heartbeat")
        fleet.heal()
        fleet.run(until: 120_000)
        XCTAssertTrue(fleet.allRootsMatch, "re-advertisements find the other side again")
        XCTAssertEqual(fleet.frames(kind: "heartbeat"), heartbeats, "nobody announced")
        XCTAssertEqual(fleet.events.filter { if case .stormSuspected = $0.event { true } else { false } }.count, 0)
    }
}
