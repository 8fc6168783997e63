import SyncRelay
import Synchronization

/// The counters a connection and its callback contexts share.
///
/// Invariant: every update happens under the one lock, so a snapshot is consistent.
final class RelayTally: Sendable {
    private let counters = Mutex(RelayCounters())

    /// The counters now.
    var snapshot: RelayCounters { counters.withLock { $0 } }

    /// Applies `change` under the lock.
    func update(_ change: (inout RelayCounters) -> Void) {
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
