/// `reconcile_req`: "here are my range fingerprints for one namespace; send what differs", or,
/// after a `RangeListing`, "send exactly these rows".
///
/// Invariant: `buckets` tile the whole key space (checked when decoding), or are empty; with
/// `keys` non-empty the responder ships exactly the listed rows it holds (and tombstones for any
/// it has deleted since); with both empty it ships the whole namespace.
package struct ReconcileRequest: Sendable, Hashable {
    /// The namespace to reconcile.
    package let namespace: String
    /// The requester's range fingerprints.
    package let buckets: [RangeBucket]
    /// Exact row keys wanted (follow-up to a listing).
    package let keys: [[UInt8]]

    /// Creates a request.
    package init(namespace: String, buckets: [RangeBucket], keys: [[UInt8]] = []) {
        self.namespace = namespace
        self.buckets = buckets
        self.keys = keys
    }
}
