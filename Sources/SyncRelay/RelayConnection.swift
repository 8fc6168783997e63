import SyncKernel

/// One open connection to a `Relay`: it listens on its inbox subject and publishes opaque
/// payloads to other subjects.
///
/// Implementation requirements:
/// - `publish` sends the payload whole or throws; it never keeps one for later. While the
///   connection is not connected it throws `relayNotConnected` and counts the drop
///   (`RelayDropReason.notConnected`); after `close()` it throws `relayClosed`.
/// - `messages` yields each whole payload received on the inbox once, in arrival order, and ends
///   when the connection closes; one consumer reads it.
/// - `events` starts with `.connected` when the connection first reaches the relay, then
///   alternates `.disconnected` and `.reconnected`, and ends after `.closed`; one consumer reads
///   it. After `.connected` and each `.reconnected` the device announces itself.
/// - `counters` only grow, and count every payload taken by `publish` as published or dropped.
/// - `close()` is idempotent and ends both streams.
public protocol RelayConnection: Sendable {
    /// The subject this connection listens on.
    var inbox: String { get }
    /// Whole payloads received on the inbox and not taken by the screen.
    var messages: AsyncStream<[UInt8]> { get }
    /// Connection state changes.
    var events: AsyncStream<RelayEvent> { get }
    /// The connection's state now.
    var status: RelayStatus { get }
    /// What the connection sent, received and dropped so far.
    var counters: RelayCounters { get }

    /// Publishes `payload` to `subject`; `shortForm` asks for the relay's short form (the
    /// recipient announced `Relay.shortFormCapability`), and a relay without one ignores it.
    /// Returns once the payload is on its way, not when it arrives.
    func publish(_ payload: [UInt8], to subject: String, shortForm: Bool) throws(RelayError)

    /// Waits until the relay processed everything this connection published so far, or
    /// `timeoutMillis` passed (then throws). May block the calling thread.
    func flush(timeoutMillis: Int64) throws(RelayError)

    /// Closes the connection: no more publishes, both streams end.
    func close()
}

extension RelayConnection {
    /// Publishes `payload` to `subject` in the relay's ordinary form.
    public func publish(_ payload: [UInt8], to subject: String) throws(RelayError) {
        try publish(payload, to: subject, shortForm: false)
    }
}
