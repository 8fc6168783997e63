/// `reconcile_req`: "here are my range fingerprints for one namespace; send what differs".
///
/// Invariant: `buckets` tile the whole key space (checked when decoding), or are empty for a
/// `.wholeNamespace` namespace, which asks for every row.
public struct ReconcileRequest: Sendable, Hashable {
    /// The namespace to reconcile.
    public let namespace: String
    /// The requester's range fingerprints.
    public let buckets: [RangeBucket]

    /// Creates a request.
    public init(namespace: String, buckets: [RangeBucket]) {
        self.namespace = namespace
        self.buckets = buckets
    }
}

/// One row shipped in a `reconcile_resp`: its canonical row encoding and, for causal namespaces, its vector.
public struct ShippedRow: Sendable, Hashable {
    /// The row exactly as the namespace's `encodeRow` wrote it.
    public let row: [UInt8]
    /// The row's version vector (nil for untracked namespaces, or from a peer that sent none).
    public let vector: VersionVector?

    /// Creates a shipped row.
    public init(row: [UInt8], vector: VersionVector?) {
        self.row = row
        self.vector = vector
    }
}

/// `reconcile_resp`: the rows of the mismatching ranges, their vectors and the namespace's tombstones.
///
/// Invariant: sent only when it carries at least one row or tombstone; a responder with nothing
/// to give stays silent.
public struct ReconcileResponse: Sendable, Hashable {
    /// The namespace the rows belong to.
    public let namespace: String
    /// The rows in the ranges whose fingerprints did not match.
    public let rows: [ShippedRow]
    /// Every tombstone the responder holds for the namespace.
    public let tombstones: [Tombstone]

    /// Creates a response.
    public init(namespace: String, rows: [ShippedRow], tombstones: [Tombstone]) {
        self.namespace = namespace
        self.rows = rows
        self.tombstones = tombstones
    }
}
