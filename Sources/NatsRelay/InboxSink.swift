import SyncRelay
import Synchronization

/// What the client library's message handler for the inbox subscription reaches: it joins chunks
/// and hands whole payloads to the consumer's stream.
///
/// Invariants: each received NATS message is counted as a chunk, each whole payload as received
/// (before the consumer can see it), and also under `receiveBufferFull` when the consumer's
/// buffer was full (or the screen's own was: `.overflowed`); a payload the screen takes is counted
/// received and never queued; the stream finishes once, when the library reports the
/// subscription complete (closed, its handler returned for the last time). The connection hands
/// the library one retained reference for the handler and that completion callback; the
/// completion callback releases it.
final class InboxSink: Sendable {
    private let continuation: AsyncStream<[UInt8]>.Continuation
    private let tally: RelayTally
    private let reassembler: Mutex<ChunkReassembler>
    private let origin = ContinuousClock.now
    private let screen: (@Sendable ([UInt8]) -> InboxDisposition)?

    /// A sink yielding into `continuation` the payloads `screen` queues (all without one),
    /// joining chunks within `limits`.
    init(continuation: AsyncStream<[UInt8]>.Continuation, tally: RelayTally, limits: ChunkReassembler.Limits,
         screen: (@Sendable ([UInt8]) -> InboxDisposition)? = nil) {
        self.continuation = continuation
        self.tally = tally
        reassembler = Mutex(ChunkReassembler(limits: limits))
        self.screen = screen
    }

    /// Takes one NATS message of the inbox.
    func receive(_ message: [UInt8]) {
        let elapsed = ContinuousClock.now - origin
        let now = elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        let (payload, drops) = reassembler.withLock { $0.accept(message, now: now) }
        tally.update { $0.receivedChunks += 1 }
        tally.drop(drops)
        guard let payload else { return }
        tally.update { $0.received += 1 }
        switch screen?(payload) ?? .queue {
        case .queue: break
        case .consumed: return
        case .overflowed:
            tally.drop([.receiveBufferFull])
            return
        }
        if case .dropped = continuation.yield(payload) { tally.drop([.receiveBufferFull]) }
    }

    /// The subscription is done: no more messages.
    func finish() {
        continuation.finish()
    }
}
