import Synchronization

/// Whether a watched process has exited, with waits for it.
///
/// Invariants: once `markExited()` ran, `hasExited` is true for good, `status` holds the status it
/// was given, and every wait returns true; a wait that times out or is cancelled returns false;
/// each waiter is resumed exactly once.
package final class ExitWatch: Sendable {
    private struct State {
        var exited = false
        var status: Int32?
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var cancelled: Set<Int> = []
        var nextID = 0
    }

    private let state = Mutex(State())

    /// A process that has not exited yet.
    package init() {}

    /// Whether the process exited.
    package var hasExited: Bool { state.withLock { $0.exited } }

    /// The exit status recorded with the exit, nil before it.
    package var status: Int32? { state.withLock { $0.status } }

    /// Records the exit (with the process's exit `status`, if known) and wakes every wait.
    package func markExited(status: Int32? = nil) {
        let waiters = state.withLock { state in
            state.exited = true
            state.status = status
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Waits up to `timeout` for the exit; whether it happened.
    package func wait(timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.wait() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first || hasExited
        }
    }

    /// Waits for the exit; false if the task is cancelled first.
    private func wait() async -> Bool {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let immediate: Bool? = state.withLock { state in
                    if state.exited { return true }
                    if state.cancelled.contains(id) { return false }
                    state.waiters[id] = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.cancelled.insert(id)
                return state.waiters.removeValue(forKey: id)
            }
            waiter?.resume(returning: false)
        }
    }
}
