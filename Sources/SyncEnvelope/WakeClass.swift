/// The coarse hint the outer envelope gives the relay about waking the recipient: the only
/// thing besides the recipient subject (and the envelope's length) that it reads.
///
/// Invariants: every `sync_delta` frame, whatever its kind (digest, request, response, sketch,
/// heartbeat), travels as `silent`, so the relay cannot tell the kinds apart; the raw value is
/// the envelope's second byte, and a byte this build does not know drops the envelope
/// (`EnvelopeDropReason.unknownFormat`).
public enum WakeClass: UInt8, Sendable, Hashable, CaseIterable {
    /// Deliver to a listening device; wake nothing.
    case silent = 0
}
