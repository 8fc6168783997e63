import Synchronization
import SyncKernel

/// A connection to a `LocalRelay`.
///
/// Invariants: every payload received is counted in `received` and then screened, queued or
/// counted under `receiveBufferFull`, exactly one of them; nothing is delivered after `close()`;
/// `.connected` is reported once, before any `.disconnected`, `.reconnected` or `.closed`; the
/// connection holds its relay, and the relay holds it only until `close()`.
final class LocalRelayConnection: RelayConnection {
    let inbox: String
    let messages: AsyncStream<[UInt8]>
    let events: AsyncStream<RelayEvent>

    private struct State {
        var status = RelayStatus.connecting
        var reachedOnce = false
        var counters = RelayCounters()
    }

    private let relay: LocalRelay
    private let screen: (@Sendable ([UInt8]) -> InboxDisposition)?
    private let messageContinuation: AsyncStream<[UInt8]>.Continuation
    private let eventContinuation: AsyncStream<RelayEvent>.Continuation
    private let state = Mutex(State())

    init(relay: LocalRelay, inbox: String, buffer: Int, screen: (@Sendable ([UInt8]) -> InboxDisposition)?) {
        self.relay = relay
        self.inbox = inbox
        self.screen = screen
        (messages, messageContinuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingOldest(buffer))
        (events, eventContinuation) = AsyncStream.makeStream(of: RelayEvent.self)
    }

    var status: RelayStatus { state.withLock { $0.status } }

    var counters: RelayCounters { state.withLock { $0.counters } }

    func publish(_ payload: [UInt8], to subject: String, shortForm: Bool) throws(RelayError) {
        try LocalRelay.validate(subject)
        guard payload.count <= relay.maxMessageBytes else {
            throw RelayError(.relayPayloadTooLarge, "beyond maxMessageBytes")
        }
        try state.withLock { state throws(RelayError) in
            guard state.status != .closed else { throw RelayError(.relayClosed) }
        }
        let routed = relay.route(payload, to: subject)
        state.withLock { state in
            if routed {
                state.counters.published += 1
                state.counters.publishedChunks += 1
                state.counters.publishedBytes += payload.count
            } else {
                state.counters.drops[.notConnected, default: 0] += 1
            }
        }
        guard routed else { throw RelayError(.relayNotConnected) }
    }

    func flush(timeoutMillis: Int64) throws(RelayError) {
        let status = status
        guard status != .closed else { throw RelayError(.relayClosed) }
        guard relay.isReachable else { throw RelayError(.relayNotConnected) }
    }

    func close() {
        let wasOpen = state.withLock { state -> Bool in
            guard state.status != .closed else { return false }
            state.status = .closed
            return true
        }
        guard wasOpen else { return }
        relay.remove(self)
        messageContinuation.finish()
        eventContinuation.yield(.closed)
        eventContinuation.finish()
    }

    /// The relay is reachable: connected (or reconnected).
    func reach() {
        let event = state.withLock { state -> RelayEvent? in
            guard state.status != .closed, state.status != .connected else { return nil }
            state.status = .connected
            defer { state.reachedOnce = true }
            return state.reachedOnce ? .reconnected : .connected
        }
        if let event { eventContinuation.yield(event) }
    }

    /// The relay went away: reconnecting.
    func lose() {
        let lost = state.withLock { state -> Bool in
            guard state.status == .connected else { return false }
            state.status = .reconnecting
            return true
        }
        if lost { eventContinuation.yield(.disconnected) }
    }

    /// One payload published to this connection's inbox.
    func receive(_ payload: [UInt8]) {
        let open = state.withLock { state -> Bool in
            guard state.status != .closed else { return false }
            state.counters.received += 1
            state.counters.receivedChunks += 1
            return true
        }
        guard open else { return }
        let disposition = screen?(payload) ?? .queue
        let overflowed: Bool
        switch disposition {
        case .queue:
            if case .dropped = messageContinuation.yield(payload) { overflowed = true } else { overflowed = false }
        case .consumed: overflowed = false
        case .overflowed: overflowed = true
        }
        if overflowed { state.withLock { $0.counters.drops[.receiveBufferFull, default: 0] += 1 } }
    }
}
