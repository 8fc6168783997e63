import Synchronization

/// The counters a connection and its callback contexts share.
///
/// Invariant: every update happens under the one lock, so a snapshot is consistent.
final class RelayTally: Sendable {
    private let counters = Mutex(NatsRelayCounters())

    /// The counters now.
    var snapshot: NatsRelayCounters { counters.withLock { $0 } }

    /// Applies `change` under the lock.
    func update(_ change: (inout NatsRelayCounters) -> Void) {
        counters.withLock { change(&$0) }
    }

    /// Counts one drop for each reason in `reasons`.
    func drop(_ reasons: [RelayDropReason]) {
        guard !reasons.isEmpty else { return }
        counters.withLock { counters in
            for reason in reasons { counters.drops[reason, default: 0] += 1 }
        }
    }
}
