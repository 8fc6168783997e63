import Synchronization

/// The output of a test server, line by line, with waits for the line that says it is ready.
///
/// Invariants: every complete line received is kept (the newest `keptLines`), in order; a wait
/// returns the first kept line that matches, or nil once the output ended, the wait timed out or
/// its task was cancelled; each waiter is resumed exactly once.
package final class LogWatch: Sendable {
    private struct Waiter {
        let id: Int
        let predicate: @Sendable (String) -> Bool
        let continuation: CheckedContinuation<String?, Never>
    }

    private struct State {
        var partial: [UInt8] = []
        var lines: [String] = []
        var ended = false
        var waiters: [Waiter] = []
        var cancelled: Set<Int> = []
        var nextID = 0
    }

    /// Lines kept for waits and failure messages.
    package static let keptLines = 4_000
    private let state = Mutex(State())

    /// An empty watch.
    package init() {}

    /// Takes more output; wakes the waits whose line arrived.
    package func append(_ bytes: [UInt8]) {
        let woken: [(CheckedContinuation<String?, Never>, String)] = state.withLock { state in
            state.partial += bytes
            var woken: [(CheckedContinuation<String?, Never>, String)] = []
            while let newline = state.partial.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: state.partial[..<newline], as: UTF8.self)
                state.partial.removeSubrange(...newline)
                state.lines.append(line)
                state.waiters.removeAll { waiter in
                    guard waiter.predicate(line) else { return false }
                    woken.append((waiter.continuation, line))
                    return true
                }
            }
            if state.lines.count > Self.keptLines { state.lines.removeFirst(state.lines.count - Self.keptLines) }
            return woken
        }
        for (continuation, line) in woken { continuation.resume(returning: line) }
    }

    /// The output ended: every pending wait returns nil.
    package func end() {
        let waiters = state.withLock { state in
            state.ended = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(returning: nil) }
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
