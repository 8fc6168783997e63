import Synchronization
import XCTest

/// Everything a stream (or a test, by hand) yielded, shared by the test targets (its self-tests are
/// `RecorderSelfTests` in NatsRelayTests), with waits for what a test expects to see.
///
/// Invariants: items are kept in arrival order; a recorder has one source, its stream or the
/// test's `append` calls, so a hand `append` to a recorder that drains a stream fails the test at
/// the caller and records nothing; a wait returns as soon as its condition holds on the items so
/// far, or false at its timeout; the draining task ends with the stream.
package final class Recorder<Element: Sendable>: Sendable {
    private struct State {
        package var items: [Element] = []
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())
    private let drainsStream: Bool

    /// A recorder fed by hand (`append`).
    package init() {
        drainsStream = false
    }

    /// A recorder draining `stream`.
    package init(_ stream: AsyncStream<Element>) {
        drainsStream = true
        Task { [weak self] in
            for await item in stream {
                guard let self else { return }
                self.record(item)
            }
        }
    }

    /// Records `item` and wakes every wait; a recorder that drains a stream refuses it.
    package func append(_ item: Element, file: StaticString = #filePath, line: UInt = #line) {
        guard !drainsStream else {
            XCTFail("a recorder that drains a stream is not fed by hand", file: file, line: line)
            return
        }
        record(item)
    }

    /// Records `item` and wakes every wait.
    private func record(_ item: Element) {
        let waiters = state.withLock { state in
            state.items.append(item)
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Everything recorded so far.
    package var items: [Element] { state.withLock { $0.items } }

    /// Waits until `condition` holds, checking it now and after every new item (it may read more
    /// than the items: a store the items report on); whether it held within `timeout`.
    package func wait(timeout: Duration, until condition: @escaping @Sendable ([Element]) async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let seen = state.withLock { $0.items.count }
            if await condition(items) { return true }
            guard ContinuousClock.now < deadline else { return false }
            guard await next(after: seen, until: deadline) else { return await condition(items) }
        }
    }

    /// Waits for an item beyond the first `count`, until `deadline`; false at the deadline.
    private func next(after count: Int, until deadline: ContinuousClock.Instant) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.arrival(after: count) }
            group.addTask {
                try? await Task.sleep(until: deadline)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Returns once more than `count` items were recorded (or the task is cancelled).
    private func arrival(after count: Int) async -> Bool {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state in
                    if state.items.count > count || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
        return !Task.isCancelled
    }
}
