import Synchronization

/// Everything a stream yielded, with waits for what a test expects to see.
///
/// Invariants: items are kept in arrival order; a wait returns as soon as its condition holds on
/// the items so far (it may read more than the items), or false at its timeout; the draining task
/// ends with the stream.
final class EventLog<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    /// A log draining `stream`.
    init(_ stream: AsyncStream<Element>) {
        Task { [weak self] in
            for await item in stream {
                guard let self else { return }
                self.append(item)
            }
        }
    }

    private func append(_ item: Element) {
        let waiters = state.withLock { state in
            state.items.append(item)
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Everything recorded so far.
    var items: [Element] { state.withLock { $0.items } }

    /// Waits until `condition` holds, checking it now and after every new item; whether it held
    /// within `timeout`.
    func wait(timeout: Duration, until condition: @escaping @Sendable ([Element]) async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let seen = state.withLock { $0.items.count }
            if await condition(items) { return true }
            guard ContinuousClock.now < deadline else { return false }
            await next(after: seen, until: deadline)
        }
    }

    /// Returns after an item beyond the first `count` arrived, or at `deadline`.
    private func next(after count: Int, until deadline: ContinuousClock.Instant) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let ready = self.state.withLock { state in
                            if state.items.count > count || Task.isCancelled { return true }
                            state.waiters[id] = continuation
                            return false
                        }
                        if ready { continuation.resume() }
                    }
                } onCancel: {
                    self.state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
                }
            }
            group.addTask { try? await Task.sleep(until: deadline) }
            await group.next()
            group.cancelAll()
        }
    }
}
