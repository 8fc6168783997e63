/// The coarse hint the outer envelope gives the relay about waking the recipient: the only
/// thing besides the recipient subject (and the envelope's length) that it reads.
///
/// Invariants: every `sync_delta` frame, whatever its kind (digest, request, response, sketch,
/// heartbeat), travels as `silent`, so the relay cannot tell the kinds apart; only the first
/// send of a snapshot request to a sibling travels as `sync` (the one frame a relay may turn into
/// a push that wakes a sleeping device), so that one frame's class is visible, deliberately; the raw value is
/// the envelope's second byte, and a byte this build does not know drops the envelope
/// (`EnvelopeDropReason.unknownFormat`).
public enum WakeClass: UInt8, Sendable, Hashable, CaseIterable {
    /// Deliver to a listening device; wake nothing.
    case silent = 0
    /// Deliver, and a relay with a push service may wake the recipient: the first send of a
    /// snapshot request (`SyncRequest`) to each sibling, and nothing else.
    case sync = 1
}
