/// Which reconcile protocol the two benchmark replicas speak.
///
/// Invariant: both replicas of a run use the same mode; `spec` is the reconciling-by-digest spec
/// (Merkle digests, bucketize, whole mismatching buckets), `fast` the sketch exchange over the
/// persisted structure (set-hash digests, a sketch sized to the expected difference, the trie
/// fallback), exactly as `Replica` runs them.
public enum BenchMode: String, Sendable, Hashable, CaseIterable {
    /// The spec's frames only.
    case spec
    /// The sketch exchange.
    case fast
}
