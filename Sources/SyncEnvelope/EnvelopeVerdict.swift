/// What the gate decided about one envelope.
///
/// Invariant: exactly one of the two; a dropped envelope's frame is never returned.
public enum EnvelopeVerdict: Sendable, Hashable {
    /// Every check passed: hand the frame to the replica.
    case accepted(OpenedEnvelope)
    /// The envelope was dropped, for this reason.
    case dropped(EnvelopeDropReason)
}
