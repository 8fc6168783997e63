/// One version of a causally tracked key: the vector of the write and its row, or no row for a delete.
///
/// Invariant: a key's versions form an antichain (no version's vector is dominated by another's);
/// the visible row is the live version the namespace's tie-break prefers, and the others are kept
/// so that no write is lost to a tie and no delete forgets what it saw.
struct StoredVersion: Hashable {
    let vector: VersionVector
    let row: [UInt8]?

    var isLive: Bool { row != nil }
}
