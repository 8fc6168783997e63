import SyncRelay
import CNats
import Synchronization

/// What the client library's connection callbacks reach: it turns them into `RelayEvent`s.
///
/// Invariants: events go out in the order `RelayEvent` documents whatever order the callbacks
/// race in (a loss before the first connection was reported is folded into `.connected`);
/// `.connected` and `.reconnected` are reported only after a flush on the connection, so the
/// server holds the renewed inbox subscription before anyone is told (the client resends it on
/// its own thread and posts the callback before that thread's flush);
/// `.closed` is yielded once and finishes the stream. The connection hands the library one
/// retained reference as the callbacks' context; the closed callback, which the library posts
/// exactly once and last of all connection callbacks (on the same serial callback thread, after
/// the connection's own threads were joined), releases it.
final class ConnectionSink: Sendable {
    private enum Phase {
        case connecting, up, down, closed
    }

    private let continuation: AsyncStream<RelayEvent>.Continuation
    /// The shared counters (slow-consumer reports land here).
    let tally: RelayTally
    private let phase = Mutex(Phase.connecting)
    private let flushTimeoutMillis: Int64

    /// A sink yielding into `continuation`, flushing for up to `flushTimeoutMillis` before it
    /// reports a connection.
    init(continuation: AsyncStream<RelayEvent>.Continuation, tally: RelayTally, flushTimeoutMillis: Int64) {
        self.continuation = continuation
        self.tally = tally
        self.flushTimeoutMillis = flushTimeoutMillis
    }

    /// Reports `.connected` or `.reconnected` once the server answered a flush on `connection`
    /// (or the flush timed out: a connection lost meanwhile reports `.disconnected` next).
    func reportUp(_ event: RelayEvent, on connection: OpaquePointer?) {
        if let connection { _ = natsConnection_FlushTimeout(connection, flushTimeoutMillis) }
        report(event)
    }

    /// The sink behind a callback context, without taking ownership of it.
    static func borrowed(_ context: UnsafeMutableRawPointer?) -> ConnectionSink? {
        context.map { Unmanaged<ConnectionSink>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Reports what the library saw, keeping the documented order.
    func report(_ event: RelayEvent) {
        phase.withLock { phase in
            switch (event, phase) {
            case (.connected, .connecting), (.reconnected, .connecting):
                phase = .up
                continuation.yield(.connected)
            case (.disconnected, .up):
                phase = .down
                continuation.yield(.disconnected)
            case (.reconnected, .down):
                phase = .up
                continuation.yield(.reconnected)
            case (.closed, .connecting), (.closed, .up), (.closed, .down):
                phase = .closed
                continuation.yield(.closed)
                continuation.finish()
            default:
                return
            }
        }
    }
}
