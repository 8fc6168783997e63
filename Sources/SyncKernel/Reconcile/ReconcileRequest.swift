/// `reconcile_req`: "here are my range fingerprints for one namespace; send what differs", or,
/// after a `RangeListing`, "send exactly these rows".
///
/// Invariant: `buckets` tile the whole key space (checked when decoding), or are empty; with
/// `keys` non-empty the responder ships exactly the listed rows it holds (and tombstones for any
/// it has deleted since); with both empty it ships the whole namespace.
public struct ReconcileRequest: Sendable, Hashable {
    /// The namespace to reconcile.
    public let namespace: String
    /// The requester's range fingerprints.
    public let buckets: [RangeBucket]
    /// Exact row keys wanted (follow-up to a listing).
    public let keys: [[UInt8]]

    /// Creates a request.
    public init(namespace: String, buckets: [RangeBucket], keys: [[UInt8]] = []) {
        self.namespace = namespace
        self.buckets = buckets
        self.keys = keys
    }
}

/// One row shipped in a `reconcile_resp`: its canonical row encoding and, for causal namespaces, its vector.
public struct ShippedRow: Sendable, Hashable {
    /// The row exactly as the namespace's `encodeRow` wrote it.
    public let row: [UInt8]
    /// The row's version vector (nil for untracked namespaces, or from a peer that sent none).
    public let vector: VersionVector?
    /// The vector of the write the content came from, when it differs from `vector`.
    public let contentVector: VersionVector?
    /// Concurrent versions of the same key that lost the tie-break, each with its own vector
    /// (`contentVector` unused); kept so that no concurrent write is lost to a tie.
    public let siblings: [ShippedRow]

    /// Creates a shipped row.
    public init(row: [UInt8], vector: VersionVector?, contentVector: VersionVector? = nil, siblings: [ShippedRow] = []) {
        self.row = row
        self.vector = vector
        self.contentVector = contentVector
        self.siblings = siblings
    }
}

/// `reconcile_resp`: rows of mismatching ranges with their vectors, leaf listings of large
/// mismatching ranges, and the namespace's tombstones.
///
/// Invariant: sent only when it carries at least one row, listing or tombstone; a responder with
/// nothing to give stays silent.
public struct ReconcileResponse: Sendable, Hashable {
    /// The namespace the rows belong to.
    public let namespace: String
    /// The rows in the ranges whose fingerprints did not match (or that were asked for by key).
    public let rows: [ShippedRow]
    /// Every delete version the responder holds for the namespace, possibly several concurrent
    /// ones per key (for a by-key request: those of the keys asked for).
    public let tombstones: [Tombstone]
    /// Leaf listings of large mismatching ranges, for the requester to diff.
    public let listings: [RangeListing]

    /// Creates a response.
    public init(namespace: String, rows: [ShippedRow], tombstones: [Tombstone], listings: [RangeListing] = []) {
        self.namespace = namespace
        self.rows = rows
        self.tombstones = tombstones
        self.listings = listings
    }
}
