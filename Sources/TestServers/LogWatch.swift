import Synchronization

/// The output of a test server, line by line, with waits for the line that says it is ready.
///
/// Invariants: every complete line received is kept (the newest `keptLines`), in order; a wait
/// returns the first kept line that matches, or nil once the output ended, the wait timed out or
/// its task was cancelled; a condition wait re-checks after every new line and at the end of the
/// output; each waiter is resumed exactly once.
package final class LogWatch: Sendable {
    private struct Waiter {
        let id: Int
        let predicate: @Sendable (String) -> Bool
        let continuation: CheckedContinuation<String?, Never>
    }

    private struct State {
        var partial: [UInt8] = []
        var lines: [String] = []
        /// Lines received in all (also those no longer kept).
        var total = 0
        var ended = false
        var waiters: [Waiter] = []
        var changeWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var cancelled: Set<Int> = []
        var nextID = 0
    }

    /// Lines kept for waits and failure messages, unless a watch is given another bound.
    package static let keptLines = 4_000
    /// The newest lines this watch keeps.
    package let keptLines: Int
    private let state = Mutex(State())

    /// An empty watch keeping the newest `keptLines` lines.
    package init(keptLines: Int = LogWatch.keptLines) {
        self.keptLines = max(1, keptLines)
    }

    /// Takes more output; wakes the waits whose line arrived.
    package func append(_ bytes: [UInt8]) {
        let woken: ([(CheckedContinuation<String?, Never>, String)], [CheckedContinuation<Void, Never>]) = state.withLock { state in
            let before = state.total
            state.partial += bytes
            var woken: [(CheckedContinuation<String?, Never>, String)] = []
            while let newline = state.partial.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: state.partial[..<newline], as: UTF8.self)
                state.partial.removeSubrange(...newline)
                state.lines.append(line)
                state.total += 1
                state.waiters.removeAll { waiter in
                    guard waiter.predicate(line) else { return false }
                    woken.append((waiter.continuation, line))
                    return true
                }
            }
            if state.lines.count > keptLines { state.lines.removeFirst(state.lines.count - keptLines) }
            return (woken, state.total != before ? Self.takeChangeWaiters(&state) : [])
        }
        for (continuation, line) in woken.0 { continuation.resume(returning: line) }
        for waiter in woken.1 { waiter.resume() }
    }

    /// Removes and returns the condition waits (to wake them).
    private static func takeChangeWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        defer { state.changeWaiters.removeAll() }
        return Array(state.changeWaiters.values)
    }

    /// The output ended: every pending wait returns nil, every condition wait checks once more.
    package func end() {
        let (waiters, changeWaiters) = state.withLock { state in
            state.ended = true
            defer { state.waiters.removeAll() }
            return (state.waiters, Self.takeChangeWaiters(&state))
        }
        for waiter in waiters { waiter.continuation.resume(returning: nil) }
        for waiter in changeWaiters { waiter.resume() }
    }

    /// Whether the output ended.
    package var hasEnded: Bool { state.withLock { $0.ended } }

    /// Waits until `condition` holds on the kept lines, checking now, after every new line and at
    /// the end of the output; whether it held within `timeout`.
    package func wait(timeout: Duration, until condition: @escaping @Sendable ([String]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (lines, total, ended) = state.withLock { ($0.lines, $0.total, $0.ended) }
            if condition(lines) { return true }
            guard !ended, ContinuousClock.now < deadline else { return false }
            await change(after: total, until: deadline)
        }
    }

    /// Returns after the next line or the end of the output, at `deadline` at the latest.
    private func change(after count: Int, until deadline: ContinuousClock.Instant) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let ready = self.state.withLock { state in
                            if state.total != count || state.ended || state.cancelled.contains(id) { return true }
                            state.changeWaiters[id] = continuation
                            return false
                        }
                        if ready { continuation.resume() }
                    }
                } onCancel: {
                    self.state.withLock { state in
                        state.cancelled.insert(id)
                        return state.changeWaiters.removeValue(forKey: id)
                    }?.resume()
                }
            }
            group.addTask { try? await Task.sleep(until: deadline) }
            await group.next()
            group.cancelAll()
        }
    }

    /// The newest `count` lines, joined.
    package func tail(_ count: Int = 40) -> String {
        state.withLock { $0.lines.suffix(count).joined(separator: "\n") }
    }

    /// Every kept line.
    package var lines: [String] { state.withLock { $0.lines } }

    /// The first line matching `predicate`, waiting up to `timeout` for it; nil if it did not come.
    package func firstLine(matching predicate: @escaping @Sendable (String) -> Bool,
                           timeout: Duration) async -> String? {
        await withTaskGroup(of: String?.self) { group in
            group.addTask { await self.firstLine(matching: predicate) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// The first line matching `predicate`, however long it takes (nil when the output ends or
    /// the task is cancelled).
    private func firstLine(matching predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let immediate: String?? = state.withLock { state in
                    if let line = state.lines.first(where: predicate) { return .some(line) }
                    if state.ended || state.cancelled.contains(id) { return .some(nil) }
                    state.waiters.append(Waiter(id: id, predicate: predicate, continuation: continuation))
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                state.cancelled.insert(id)
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(returning: nil)
        }
    }
}
