import SyncRelay
import NatsRelay
import SyncKernel
import XCTest

/// Something one device of a fleet did or saw: a replica event, a frame handed to the relay,
/// or a relay connection event.
struct FleetEvent: Sendable {
    /// What happened.
    enum Kind: Sendable {
        /// The replica reported an event.
        case replica(ReplicaEvent)
        /// The host handed a frame of `kind` to the transport (sent or dropped: see the counters).
        case sent(kind: String)
        /// The relay connection changed state.
        case relay(RelayEvent)
    }

    /// The device's index.
    let device: Int
    /// What happened.
    let kind: Kind

    init(device: Int, _ kind: Kind) {
        self.device = device
        self.kind = kind
    }

    /// Whether this is relay event `event`.
    func isRelay(_ event: RelayEvent) -> Bool {
        if case .relay(let seen) = kind { return seen == event }
        return false
    }
}

/// The relay tests wait on `isRelay`: check it matches that relay event and nothing else.
final class FleetEventSelfTests: XCTestCase {
    func testIsRelayMatchesOnlyThatRelayEvent() throws {
        let events: [RelayEvent] = [.connected, .disconnected, .reconnected, .closed]
        for event in events {
            let seen = FleetEvent(device: 2, .relay(event))
            XCTAssertEqual(events.filter(seen.isRelay), [event])
            XCTAssertEqual(seen.device, 2)
        }
        XCTAssertFalse(FleetEvent(device: 0, .sent(kind: "announce")).isRelay(.connected))
        let peer = try DeviceKeyPair(seed: [UInt8](repeating: 1, count: 32)).deviceID
        XCTAssertFalse(FleetEvent(device: 0, .replica(.converged(peer: peer))).isRelay(.connected))
    }
}
