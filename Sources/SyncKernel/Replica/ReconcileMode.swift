/// Which reconcile frames a replica speaks.
///
/// Invariant: a `.sketch` replica speaks both protocols and uses the sketch exchange only with a
/// peer that announced it (negotiated from the peer's own frames, never assumed); a `.spec`
/// replica behaves as a build that knows only the spec's frames: Merkle digests and whole
/// mismatching buckets, no capability announced, sketch frames refused as unknown kinds.
public enum ReconcileMode: Sendable, Hashable {
    /// Set-hash digests and the sketch exchange with peers that announce them; the spec with others.
    case sketch
    /// Only the spec's frames.
    case spec
}
