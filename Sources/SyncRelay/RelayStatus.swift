/// The state of a relay connection now.
///
/// Invariant: publishing succeeds only in `.connected`.
public enum RelayStatus: Sendable, Hashable {
    /// Trying to reach a server for the first time.
    case connecting
    /// Connected: publishes go out.
    case connected
    /// Lost its server, trying the servers again.
    case reconnecting
    /// Closed for good.
    case closed
}
