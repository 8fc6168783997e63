/// An async mutex for one actor: callers that find it taken wait in FIFO order.
///
/// Invariant: at most one holder at a time; `release` hands the gate to the oldest waiter.
/// Used only from its owning actor, which makes its state safe.
struct AsyncGate {
    private var taken = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Whether the caller must wait; when `false` the caller now holds the gate.
    mutating func tryTake() -> Bool {
        if taken { return false }
        taken = true
        return true
    }

    /// Queues a waiter that is resumed holding the gate.
    mutating func enqueue(_ waiter: CheckedContinuation<Void, Never>) {
        waiters.append(waiter)
    }

    /// Releases the gate, handing it to the oldest waiter if any.
    mutating func release() {
        if waiters.isEmpty {
            taken = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
