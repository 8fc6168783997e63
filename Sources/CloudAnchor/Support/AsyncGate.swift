import Synchronization

/// An async mutex: `withGate` bodies run one at a time, in the order they arrived.
///
/// Invariant: at most one body runs at a time; a release hands the gate to the oldest waiter.
final class AsyncGate: Sendable {
    private struct State {
        var taken = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` once the gate is free, holding it until `body` returns or throws.
    func withGate<Result>(isolation: isolated (any Actor)? = #isolation,
                          _ body: () async throws -> Result) async throws -> Result {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let free = state.withLock { state in
                if state.taken {
                    state.waiters.append(waiter)
                    return false
                }
                state.taken = true
                return true
            }
            if free { waiter.resume() }
        }
        defer { release() }
        return try await body()
    }

    private func release() {
        let next: CheckedContinuation<Void, Never>? = state.withLock { state in
            if state.waiters.isEmpty {
                state.taken = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
