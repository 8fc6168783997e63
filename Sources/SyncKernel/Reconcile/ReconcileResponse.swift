/// `reconcile_resp`: rows that differ with their vectors, delete versions, leaf listings of large
/// mismatching ranges, and (in the sketch exchange) the keys the sender wants back.
///
/// Invariants: sent only when it carries at least one row, tombstone, listing or wanted key; a
/// responder with nothing to give stays silent. Rows are split across several responses so no
/// frame outgrows `ReconcileResponse.rowBytesPerFrame`; `want` rides on the first.
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
    /// Keys whose rows (and delete versions) the sender asks the receiver to ship back.
    package let want: [[UInt8]]
    /// Whether this response is itself a ship-back: its receiver merges it and ships nothing
    /// back, so an exchange ends after at most one ship-back whatever the rule's merge does.
    package let isFinal: Bool

    /// The encoded row bytes one response carries at most before the rest go in another.
    package static let rowBytesPerFrame = 4 << 20

    /// Creates a response.
    package init(namespace: String, rows: [ShippedRow], tombstones: [Tombstone], listings: [RangeListing] = [],
                 want: [[UInt8]] = [], isFinal: Bool = false) {
        self.namespace = namespace
        self.rows = rows
        self.tombstones = tombstones
        self.listings = listings
        self.want = want
        self.isFinal = isFinal
    }

    /// Throws `counterOutOfRange` when any vector the response carries (a row's, a content
    /// vector, a sibling's, a tombstone's) holds a counter above `VersionVector.maxCounter`.
    package func checkCounters() throws(SyncKernelError) {
        for row in rows { try row.checkCounters() }
        for tombstone in tombstones { try tombstone.vector.checkBounds("a tombstone") }
    }

    /// Whether the response carries nothing.
    package var isEmpty: Bool { rows.isEmpty && tombstones.isEmpty && listings.isEmpty && want.isEmpty }

    /// This response split so each part's rows stay within `rowBytesPerFrame` (a single larger
    /// row travels alone); tombstones, listings and `want` ride on the first part.
    package func split() -> [ReconcileResponse] {
        var parts: [[ShippedRow]] = [[]]
        var bytes = 0
        for row in rows {
            let size = row.encodedSize
            if bytes + size > ReconcileResponse.rowBytesPerFrame, !(parts.last?.isEmpty ?? true) {
                parts.append([])
                bytes = 0
            }
            parts[parts.count - 1].append(row)
            bytes += size
        }
        return parts.enumerated().map { index, rows in
            index == 0 ? ReconcileResponse(namespace: namespace, rows: rows, tombstones: tombstones, listings: listings, want: want,
                                           isFinal: isFinal)
                : ReconcileResponse(namespace: namespace, rows: rows, tombstones: [], isFinal: isFinal)
        }
    }
}
