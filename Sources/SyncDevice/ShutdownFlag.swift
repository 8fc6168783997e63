import Synchronization

/// The flag a running device raises when it starts shutting down, read by work that runs outside
/// its tasks' cancellation (a snapshot export or absorb on an executor of its own).
///
/// Invariant: once raised it stays raised.
final class ShutdownFlag: Sendable {
    private let raised = Mutex(false)

    /// Whether the device is shutting down.
    var isRaised: Bool { raised.withLock { $0 } }

    /// Raises the flag.
    func raise() {
        raised.withLock { $0 = true }
    }
}
