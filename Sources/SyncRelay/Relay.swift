import SyncKernel

/// A pub/sub relay a device reaches: it opens connections that listen on one inbox subject each
/// and publish opaque payloads to other subjects. NATS implements it (`NatsRelayOptions`);
/// `LocalRelay` is one inside the process, for tests and demos.
///
/// Implementation requirements:
/// - A relay stores nothing: a payload reaches the connections listening on its subject when it
///   is published, or no one. The device's digest loop makes up for what is lost.
/// - `connect` may block (a handshake with a server): the device calls it, and `flush` and
///   `close` of its connections, from its own I/O executor, never from an actor of the sync loop.
/// - A relay never reads, changes or keeps the payloads it carries, and a connection hands each
///   whole payload received on its inbox to `screen` (when given) or `messages` exactly once.
public protocol Relay: Sendable {
    /// How many received payloads a connection holds for its consumer before it drops the next
    /// (`RelayDropReason.receiveBufferFull`); the device sizes its own inbox queue the same.
    var receiveBufferMessages: Int { get }

    /// The capability a device announces to its siblings to say its connections read the relay's
    /// short form (`RelayConnection.publish(_:to:shortForm:)`), nil when the relay has none.
    var shortFormCapability: String? { get }

    /// Checks the configuration without connecting: throws the reason a `connect` would refuse
    /// it (`invalidRelayConfiguration`), or returns the relay to connect with.
    func validated() throws(RelayError) -> Self

    /// Opens a connection listening on `inbox`. `screen`, when given, runs on each whole payload
    /// received, in arrival order, before it is queued: only a payload it answers `.queue` for
    /// goes to `messages`.
    ///
    /// Throws `invalidSubject` for an inbox the relay refuses, `invalidRelayConfiguration` or
    /// `relayConnectionFailed` when no connection can be set up; a relay that cannot be reached
    /// yet is not an error (the connection reports `.connected` when it gets there).
    func connect(inbox: String, screen: (@Sendable ([UInt8]) -> InboxDisposition)?) throws(RelayError) -> any RelayConnection
}

extension Relay {
    /// No short form: every payload goes in the relay's one form.
    public var shortFormCapability: String? { nil }

    /// Nothing to check.
    public func validated() throws(RelayError) -> Self { self }

    /// A connection on `inbox` that queues every payload for `messages`.
    public func connect(inbox: String) throws(RelayError) -> any RelayConnection {
        try connect(inbox: inbox, screen: nil)
    }
}
