import SyncKernel
import SyncKernelSimulator
import XCTest

/// The storm guard in running fleets: a namespace that keeps diverging trips it within the spec's
/// bound (by the ninth round without progress inside ten seconds), names only that namespace and
/// backs the pair off; see `StormSweepTests` for the converging fleets it must leave alone.
final class StormFleetTests: XCTestCase {
    private static let requestKinds: Set<String> = ["sketch_req", "reconcile_req", "range_req"]

    /// The first trip of a fleet and the rounds the tripping device had started with its sibling.
    private struct Trip {
        let time: Int64
        let device: DeviceID
        let peer: DeviceID
        let namespaces: [String]
        let rounds: [Int64]
    }

    private func requests(_ fleet: Fleet, from: DeviceID? = nil, to: DeviceID? = nil, in range: Range<Int64>) -> [Int64] {
        fleet.sent.filter { sent in
            Self.requestKinds.contains(sent.kind) && range.contains(sent.time)
                && from.map { sent.from == $0 } ?? true && to.map { sent.to == $0 } ?? true
        }.map(\.time)
    }

    private func firstTrip(_ fleet: Fleet, file: StaticString = #filePath, line: UInt = #line) throws -> Trip {
        let trips = fleet.events.compactMap { event -> (time: Int64, device: DeviceID, peer: DeviceID, namespaces: [String])? in
            guard case .stormSuspected(let peer, let namespaces, _) = event.event else { return nil }
            return (event.time, event.device, peer, namespaces)
        }
        let first = try XCTUnwrap(trips.first, "the guard never tripped", file: file, line: line)
        return Trip(time: first.time, device: first.device, peer: first.peer, namespaces: first.namespaces,
                    rounds: requests(fleet, from: first.device, to: first.peer, in: 0..<(first.time + 1)))
    }

    /// Two devices on a perfect link whose one `N` row disagrees from the start and never settles.
    private func stormingPair<N: SyncNamespace>(_ namespace: N.Type, latency: Int64, mode: ReconcileMode = .sketch,
                                                row: (Int) -> N.Row) throws -> (TestWorld, Fleet) {
        let world = try TestWorld()
        let fleet = try world.fleet(2, namespaces: [N.self], conditions: RelayConditions(latencyMillis: latency), modes: [mode, mode])
        for index in 0..<2 {
            try fleet.write(on: index, N.self) { tx throws(SyncKernelError) in try tx.save(row(index)) }
        }
        return (world, fleet)
    }

    /// Runs a storm two minutes and checks the trip: named, by the ninth round without progress
    /// (`progressRounds` rounds reach the states first), inside ten seconds, then a 30 s back-off.
    private func assertTripsWithinTheBound(_ fleet: Fleet, namespace: String, progressRounds: Int, label: String,
                                           file: StaticString = #filePath, line: UInt = #line) throws {
        fleet.run(until: 120_000)
        let trip = try firstTrip(fleet, file: file, line: line)
        XCTAssertEqual(trip.namespaces, [namespace], label, file: file, line: line)
        XCTAssertFalse(fleet.allRootsMatch, label, file: file, line: line)
        let limit = LoopTiming().stormRoundLimit
        XCTAssertEqual(trip.rounds.count, progressRounds + limit,
                       "\(label): rounds started before the trip \(trip.rounds)", file: file, line: line)
        let firstWithoutProgress = trip.rounds[progressRounds]
        XCTAssertLessThan(trip.time - firstWithoutProgress, LoopTiming().stormWindowMillis,
                          "\(label): the rounds without progress fit in the window", file: file, line: line)
        let during = requests(fleet, from: trip.device, to: trip.peer, in: (trip.time + 1)..<(trip.time + LoopTiming().stormBackoffMillis))
        XCTAssertEqual(during, [], "\(label): the pair backs off", file: file, line: line)
        let lastMinute = requests(fleet, in: 60_000..<120_000).count
        XCTAssertLessThanOrEqual(lastMinute, 60, "\(label): a storm held to a few rounds per back-off", file: file, line: line)
        print("\(label): trip at \(trip.time) ms after \(trip.rounds.count) rounds, \(lastMinute) requests in the second minute")
    }

    func testAHashedPerDeviceFieldTripsByTheNinthRoundWithoutProgress() throws {
        for latency: Int64 in [80, 150] {
            let (world, fleet) = try stormingPair(StormyNamespace.self, latency: latency) { .init(id: "s", seenOnDevice: "device-\($0)") }
            try assertTripsWithinTheBound(fleet, namespace: "stormy", progressRounds: 1, label: "hashed per-device field, \(latency) ms")
            withExtendedLifetime(world) {}
        }
    }

    func testAFlipFloppingRowTripsByTheNinthRoundWithoutProgress() throws {
        for latency: Int64 in [80, 150] {
            let (world, fleet) = try stormingPair(FlipFlopNamespace.self, latency: latency) { .init(id: "f", state: "state-\($0)") }
            try assertTripsWithinTheBound(fleet, namespace: "flipflop", progressRounds: 2, label: "flip-flopping row, \(latency) ms")
            withExtendedLifetime(world) {}
        }
    }

    func testAStormBetweenSpecOnlyDevicesTripsToo() throws {
        let (world, fleet) = try stormingPair(StormyNamespace.self, latency: 80, mode: .spec) { .init(id: "s", seenOnDevice: "device-\($0)") }
        try assertTripsWithinTheBound(fleet, namespace: "stormy", progressRounds: 1, label: "spec frames, 80 ms")
        withExtendedLifetime(world) {}
    }

    func testAStormAmidWritesNamesOnlyTheStormingNamespace() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(3, namespaces: [RecordNamespace.self, StormyNamespace.self],
                                    conditions: RelayConditions(latencyMillis: 80, lossRate: 0.1, duplicationRate: 0.1,
                                                                reorderJitterMillis: 20), seed: 3)
        for index in 0..<3 {
            try fleet.write(on: index, StormyNamespace.self) { tx throws(SyncKernelError) in
                try tx.save(.init(id: "s", seenOnDevice: "device-\(index)"))
            }
        }
        var random = SeededGenerator(seed: 3)
        for step in 0..<200 {
            fleet.run(until: Int64(step) * 100)
            try fleet.save(RecordNamespace.Row(id: "r\(random.next() % 50)", value: "v\(step)", updatedAt: Int64(step)),
                           on: Int(random.next() % 3))
        }
        fleet.run(until: 120_000)
        let trips = fleet.events.compactMap { event -> (Int64, [String])? in
            if case .stormSuspected(_, let namespaces, _) = event.event { return (event.time, namespaces) } else { return nil }
        }
        XCTAssertLessThan(try XCTUnwrap(trips.first?.0), 10_000, "the storm trips while records are still being written")
        XCTAssertEqual(Set(trips.map(\.1)), [["stormy"]], "every trip names the storming namespace and only it")
        let records = try XCTUnwrap(fleet.replicas[0].store.namespaces.names.firstIndex(of: "records"))
        XCTAssertEqual(Set(fleet.replicas.map { $0.store.stateDigest().roots[records] }).count, 1, "the records converged")
    }
}
