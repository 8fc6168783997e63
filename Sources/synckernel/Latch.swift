import Synchronization

/// A one-way switch tasks wait on: `synckernel device` holds one that SIGINT, SIGTERM and `quit`
/// open (the stop) and one that opens once the device is ready for commands.
///
/// Invariants: once open it stays open; every `wait` returns once it is (at once when it
/// already is); opening again changes nothing.
final class Latch: Sendable {
    private struct State {
        var open = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Whether the latch was opened.
    var isOpen: Bool { state.withLock { $0.open } }

    /// Opens the latch and wakes every wait.
    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the latch is open.
    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
