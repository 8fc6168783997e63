import NatsRelay
import SyncKernel

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
        case relay(NatsRelayEvent)
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
    func isRelay(_ event: NatsRelayEvent) -> Bool {
        if case .relay(let seen) = kind { return seen == event }
        return false
    }
}
