/// What an inbox screen (the `screen` of `Relay.connect(inbox:screen:)`) did with one whole
/// payload, on the connection's receiving thread.
///
/// Invariant: each payload gets exactly one; only `.queue` puts it on `messages`.
public enum InboxDisposition: Sendable, Hashable {
    /// Queue the payload for `messages`, as without a screen.
    case queue
    /// The screen took the payload (handed it on itself, or refused and counted it).
    case consumed
    /// The screen took the payload but its own consumer's buffer was full, so it was lost:
    /// counted under `RelayDropReason.receiveBufferFull`.
    case overflowed
}
