/// `reconcile_resp`: rows of mismatching ranges with their vectors, leaf listings of large
/// mismatching ranges, and the namespace's tombstones.
///
/// Invariant: sent only when it carries at least one row, listing or tombstone; a responder with
/// nothing to give stays silent.
package struct ReconcileResponse: Sendable, Hashable {
    /// The namespace the rows belong to.
    package let namespace: String
    /// The rows in the ranges whose fingerprints did not match (or that were asked for by key).
    package let rows: [ShippedRow]
    /// Every delete version the responder holds for the namespace, possibly several concurrent
    /// ones per key (for a by-key request: those of the keys asked for).
    package let tombstones: [Tombstone]
    /// Leaf listings of large mismatching ranges, for the requester to diff.
    package let listings: [RangeListing]

    /// Creates a response.
    package init(namespace: String, rows: [ShippedRow], tombstones: [Tombstone], listings: [RangeListing] = []) {
        self.namespace = namespace
        self.rows = rows
        self.tombstones = tombstones
        self.listings = listings
    }
}
