/// What moves sealed envelopes between devices: a publish/subscribe relay (NATS core), or an
/// in-process one in tests.
///
/// ## Implementation requirements
/// - `publish` delivers `envelope.bytes` to the current subscribers of `envelope.subject.value`
///   or drops it; it stores nothing for later (no mailbox).
/// - The relay is shown the subject, the wake class (`envelope.wake`, which is also the bytes'
///   second byte) and the bytes; a carrier adds nothing that names the sender or the account.
/// - A device subscribes to its own inbox subject (`EnvelopeKeys.inbox`) and hands every
///   envelope it receives there to its `SealedReceiver`.
public protocol EnvelopeCarrier: Sendable {
    /// Publishes one sealed envelope.
    func publish(_ envelope: SealedEnvelope) async
}
