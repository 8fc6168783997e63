/// One sealed frame, ready for the relay: its bytes, the inbox subject to publish them to and
/// the wake class.
///
/// Invariants: `bytes` opens only with the recipient's envelope secret key; outside the sealed
/// box they carry only the format version and `wake` (the sender's identity, the account and the
/// frame's kind are all inside); `bytes.count` is the frame's length plus `overheadBytes`, at
/// most `maxBytes`.
public struct SealedEnvelope: Sendable, Hashable {
    /// Everything an envelope adds to its frame (372 bytes).
    public static let overheadBytes = EnvelopeFormat.overheadBytes
    /// The largest envelope a gate opens: `SyncFrame.maxFrameBytes` plus `overheadBytes`.
    public static let maxBytes = EnvelopeFormat.maxEnvelopeBytes

    /// The recipient's inbox subject: where the relay publishes the envelope.
    public let subject: RecipientSubject
    /// The coarse wake class (also the envelope's second byte).
    public let wake: WakeClass
    /// The envelope's bytes.
    public let bytes: [UInt8]

    /// An envelope from its parts.
    package init(subject: RecipientSubject, wake: WakeClass, bytes: [UInt8]) {
        self.subject = subject
        self.wake = wake
        self.bytes = bytes
    }
}
