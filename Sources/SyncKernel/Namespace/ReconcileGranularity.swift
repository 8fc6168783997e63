/// How a namespace is compared during a reconcile.
public enum ReconcileGranularity: String, Sendable, Hashable {
    /// Range fingerprints over per-row leaves (`bucketize`).
    case ranges
    /// No fingerprints: the responder sends the whole namespace (for tiny dictionaries).
    case wholeNamespace
}
