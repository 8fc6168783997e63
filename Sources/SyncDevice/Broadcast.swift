import Synchronization

/// A stream source any number of consumers subscribe to: every value yielded after a
/// subscription reaches that subscriber, in the order `yield` was called.
///
/// Invariants: a subscription buffers at most `bufferLimit` values (beyond that the oldest
/// unread ones go, so a consumer that stopped reading costs bounded memory); a value yielded with
/// a `marker` reaches only the subscriptions made before that marker was read, so a subscriber
/// never receives a value that was computed before it subscribed; a terminated subscription is
/// forgotten; after `finish()` every subscription ends and new ones end at once.
final class Broadcast<Element: Sendable>: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<Element>.Continuation] = [:]
        var nextID = 0
        var finished = false
    }

    private let state = Mutex(State())
    /// Values kept per subscription for a consumer that has not read them.
    let bufferLimit: Int

    /// A broadcast keeping up to `bufferLimit` unread values per subscription.
    init(bufferLimit: Int) {
        self.bufferLimit = max(1, bufferLimit)
    }

    /// A new subscription: the values yielded from now on.
    func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let id: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// The current subscription marker: read it before computing a value, and yield the value
    /// with it, so that subscriptions made meanwhile do not receive it.
    var marker: Int { state.withLock { $0.nextID } }

    /// Hands `element` to every subscription (made up to `marker`, when given).
    func yield(_ element: Element, marker: Int = .max) {
        let subscribers = state.withLock { state in state.subscribers.filter { $0.key <= marker }.map(\.value) }
        for subscriber in subscribers { subscriber.yield(element) }
    }

    /// Ends every subscription, now and to come.
    func finish() {
        let subscribers = state.withLock { state in
            state.finished = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
