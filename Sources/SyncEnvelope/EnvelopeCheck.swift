/// What the gate's stateless stage (`EnvelopeOpener.check`) decided about one envelope.
///
/// Invariant: exactly one of the two; a dropped envelope's frame is never returned.
public enum EnvelopeCheck: Sendable, Hashable {
    /// Every check but the seen set passed: hand it to `EnvelopeGate.admit`.
    case passed(CheckedEnvelope)
    /// The envelope was dropped, for this reason.
    case dropped(EnvelopeDropReason)
}
