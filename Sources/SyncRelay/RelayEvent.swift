/// A change of a relay connection's state, in the order the connection saw them.
///
/// Invariants: `.connected` comes once, first, when the connection first reaches a server (at
/// once if one answered while connecting, later if none did); then `.disconnected` and
/// `.reconnected` alternate; `.closed` is the last event (a connection closed while connected
/// reports `.disconnected` just before it), after which the stream ends. After
/// `.connected` and after every `.reconnected` the host announces its device (heartbeats): the
/// relay kept nothing for it while it was away, and the digest loop catches up from there.
public enum RelayEvent: Sendable, Hashable {
    /// Connected for the first time; the relay holds the inbox subscription (on a NATS cluster,
    /// the other nodes learn it through their routes a moment later).
    case connected
    /// Lost the relay; the connection is reconnecting. Publishes fail with `relayNotConnected`.
    case disconnected
    /// Connected again (to the same server or another node); the relay holds the renewed inbox
    /// subscription.
    case reconnected
    /// The connection is closed for good (`close()`, or the reconnect attempts ran out).
    case closed
}
