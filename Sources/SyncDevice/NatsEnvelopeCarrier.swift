import NatsRelay
import SyncEnvelope
import SyncKernel

/// The NATS relay connection as an `EnvelopeCarrier`: each sealed envelope is published, as
/// opaque bytes, on the recipient's inbox subject.
///
/// Invariants: the relay is given the envelope's subject and bytes and nothing else (the wake
/// class is the bytes' second byte); an envelope the connection refuses (not connected, closed,
/// too large) is dropped, never kept for later, and counted by the connection
/// (`NatsRelayConnection.counters`): the digest loop's re-advertisements make up for it.
struct NatsEnvelopeCarrier: EnvelopeCarrier {
    /// The device's connection.
    let connection: NatsRelayConnection

    /// Publishes `envelope.bytes` on `envelope.subject`, or drops them.
    func publish(_ envelope: SealedEnvelope) async {
        do throws(SyncKernelError) {
            try connection.publish(envelope.bytes, to: envelope.subject.value)
        } catch {
            // Dropped and counted by the connection; nothing is queued (no mailbox).
            return
        }
    }
}
