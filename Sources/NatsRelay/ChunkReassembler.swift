import SyncRelay

/// Joins the chunks of received payloads, within bounds a hostile or broken sender cannot move.
///
/// Invariants: a payload is returned once, when its last missing chunk arrives, and only if it
/// is within `maxMessageBytes` and `maxChunks`; at most `maxPartials` partial payloads and
/// `budgetBytes` of their data are kept (the oldest partial goes first); a partial older than
/// `timeoutMillis` is dropped at the next chunk; every chunk not delivered is counted under one
/// `RelayDropReason` in the drops `accept` returns (a dropped partial counts once, not per chunk).
/// Time is the caller's, in milliseconds, so tests drive it.
package struct ChunkReassembler: Sendable {
    /// The bounds.
    package struct Limits: Sendable, Hashable {
        /// Largest payload reassembled.
        package var maxMessageBytes: Int
        /// Most chunks per payload.
        package var maxChunks: Int
        /// Most bytes of partial payloads kept.
        package var budgetBytes: Int
        /// Most partial payloads kept.
        package var maxPartials: Int
        /// How long a partial payload waits for its other chunks.
        package var timeoutMillis: Int64

        /// The bounds of `options`.
        package init(_ options: NatsRelayOptions) {
            maxMessageBytes = options.maxMessageBytes
            maxChunks = options.maxChunksPerMessage
            budgetBytes = options.reassemblyBudgetBytes
            maxPartials = options.maxPartialMessages
            timeoutMillis = options.reassemblyTimeoutMillis
        }
    }

    private struct Partial {
        let count: UInt32
        let startedAt: Int64
        let sequence: UInt64
        var chunks: [UInt32: ArraySlice<UInt8>] = [:]
        var bytes = 0
    }

    /// The bounds in force.
    package let limits: Limits
    private var partials: [UInt64: Partial] = [:]
    private var nextSequence: UInt64 = 0

    /// An empty reassembler.
    package init(limits: Limits) {
        self.limits = limits
    }

    /// Bytes of partial payloads held now.
    package var heldBytes: Int { partials.values.reduce(0) { $0 + $1.bytes } }

    /// Partial payloads held now.
    package var heldPartials: Int { partials.count }

    /// Takes one received NATS message at `now`: the whole payload when this completed one, and
    /// what was dropped on the way.
    package mutating func accept(_ message: [UInt8], now: Int64) -> (payload: [UInt8]?, drops: [RelayDropReason]) {
        var drops = expire(now: now)
        guard let chunk = RelayChunk(parsing: message) else { return (nil, drops + [.malformedChunk]) }
        guard chunk.count <= limits.maxChunks, chunk.data.count <= limits.maxMessageBytes else {
            partials[chunk.messageID] = nil
            return (nil, drops + [.oversized])
        }
        if chunk.count == 1 { return (Array(chunk.data), drops) }
        var partial: Partial
        if let held = partials.removeValue(forKey: chunk.messageID) {
            guard held.count == chunk.count, held.chunks[chunk.index] == nil else {
                partials[chunk.messageID] = held
                return (nil, drops + [.malformedChunk])
            }
            partial = held
        } else {
            while partials.count >= limits.maxPartials, evictOldest() { drops.append(.evicted) }
            partial = Partial(count: chunk.count, startedAt: now, sequence: nextSequence)
            nextSequence += 1
        }
        guard partial.bytes + chunk.data.count <= limits.maxMessageBytes else { return (nil, drops + [.oversized]) }
        while heldBytes + partial.bytes + chunk.data.count > limits.budgetBytes, evictOldest() { drops.append(.evicted) }
        partial.chunks[chunk.index] = chunk.data
        partial.bytes += chunk.data.count
        guard partial.chunks.count == Int(partial.count) else {
            partials[chunk.messageID] = partial
            return (nil, drops)
        }
        var payload = [UInt8]()
        payload.reserveCapacity(partial.bytes)
        for index in 0..<partial.count {
            if let data = partial.chunks[index] { payload += data }
        }
        return (payload, drops)
    }

    /// Drops the partial payloads that waited longer than the timeout.
    private mutating func expire(now: Int64) -> [RelayDropReason] {
        let stale = partials.filter { now - $0.value.startedAt >= limits.timeoutMillis }.keys
        for id in stale { partials[id] = nil }
        return Array(repeating: .expired, count: stale.count)
    }

    /// Drops the oldest partial payload; false when none is held.
    private mutating func evictOldest() -> Bool {
        guard let oldest = partials.min(by: { $0.value.sequence < $1.value.sequence })?.key else { return false }
        partials[oldest] = nil
        return true
    }
}
