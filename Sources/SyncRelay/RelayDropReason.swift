/// Why a relay connection dropped a payload or a chunk of one.
///
/// Invariant: every payload a connection does not send, and every chunk it receives and does not
/// deliver, is counted under exactly one reason in `RelayCounters.drops`.
public enum RelayDropReason: String, Sendable, Hashable, CaseIterable, Comparable {
    /// A publish while the connection was not connected (nothing is kept for later).
    case notConnected
    /// The client library refused a publish.
    case publishFailed
    /// A received chunk whose header is unreadable or contradicts its earlier chunks, or repeats one.
    case malformedChunk
    /// A received payload beyond `maxMessageBytes` or `maxChunksPerMessage`.
    case oversized
    /// A partial payload whose missing chunks did not arrive within `reassemblyTimeoutMillis`.
    case expired
    /// A partial payload dropped for a newer one (`maxPartialMessages`, `reassemblyBudgetBytes`).
    case evicted
    /// A payload received while `receiveBufferMessages` were still waiting for the consumer.
    case receiveBufferFull
    /// Messages the client library dropped because the inbox subscription fell behind (slow consumer), as the library counts them.
    case slowConsumer

    public static func < (lhs: RelayDropReason, rhs: RelayDropReason) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
