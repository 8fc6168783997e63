/// What a relay connection has sent, received and dropped since it was created.
///
/// Invariants: counters only grow; `publishedChunks >= published` (a payload is at least one
/// chunk); every payload `publish` takes (a valid subject, within the bounds, on a connection not
/// closed) is counted in `published` or under a drop reason;
/// every payload reassembled is counted in `received` before the consumer can see it, those
/// the consumer's full buffer refused also under `receiveBufferFull`.
public struct RelayCounters: Sendable, Hashable {
    /// Payloads published whole.
    public var published = 0
    /// NATS messages published (a payload larger than one message is several chunks).
    public var publishedChunks = 0
    /// Payload bytes published.
    public var publishedBytes = 0
    /// Payloads published in the short form (one message, a one-byte header: `shortForm`).
    public var publishedShort = 0
    /// Payloads received whole (handed to the consumer, or refused by its full buffer).
    public var received = 0
    /// NATS messages received.
    public var receivedChunks = 0
    /// Drops by reason.
    public var drops: [RelayDropReason: Int] = [:]

    /// No traffic yet.
    public init() {}

    /// Drops under `reason` (zero when none).
    public func dropped(_ reason: RelayDropReason) -> Int {
        drops[reason] ?? 0
    }
}
