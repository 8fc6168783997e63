import Synchronization

/// The one-way switch that ends `synckernel device`: set by SIGINT, SIGTERM or `quit`.
///
/// Invariants: once requested it stays requested; every `wait` returns once it is (at once when
/// it already is); requesting again changes nothing.
final class StopRequest: Sendable {
    private struct State {
        var requested = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Whether a stop was requested.
    var isRequested: Bool { state.withLock { $0.requested } }

    /// Requests the stop and wakes every wait.
    func request() {
        let waiters = state.withLock { state in
            state.requested = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once a stop is requested.
    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.requested { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
