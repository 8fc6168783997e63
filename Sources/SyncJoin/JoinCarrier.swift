/// What moves the join protocol's messages: a publish/subscribe relay (NATS core), or an
/// in-process one in tests. It is the same relay the envelopes travel on; only the subjects differ.
///
/// ## Implementation requirements
/// - `publish` delivers `bytes` to the current subscribers of `subject.value` or drops them; it
///   stores nothing for later (no mailbox).
/// - A device that may admit others subscribes to its account's discovery subject
///   (`JoinResponder.discoverySubject`) and hands every message there to `JoinResponder.deliver`.
/// - A device asking to join subscribes to its reply subject (`JoinRequester.replySubject`)
///   *before* it starts, and hands every message there to `JoinRequester.deliver`.
/// - The relay is shown the subject and the bytes; a carrier adds nothing that names the sender,
///   the account or the device.
public protocol JoinCarrier: Sendable {
    /// Publishes `bytes` on `subject`.
    func publish(_ bytes: [UInt8], to subject: JoinSubject) async
}
