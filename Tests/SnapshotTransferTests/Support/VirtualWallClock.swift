import Synchronization
import SyncEnvelope

/// A wall clock a test moves by hand.
///
/// Invariant: reads exactly the time last set; never moves by itself.
final class VirtualWallClock: WallClock {
    private let now: Mutex<Int64>

    init(_ start: Int64 = 1_790_000_000_000) {
        now = Mutex(start)
    }

    var millisecondsSince1970: Int64 { now.withLock { $0 } }

    /// Moves the clock forward by `duration`.
    func advance(by duration: Duration) {
        let parts = duration.components
        now.withLock { $0 += parts.seconds * 1_000 + parts.attoseconds / 1_000_000_000_000_000 }
    }
}
