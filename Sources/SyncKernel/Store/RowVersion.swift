/// The kernel's bookkeeping for one causally tracked row: its vector, the vector of the write
/// its content came from, and the stamp last accounted for.
///
/// Invariants: `contentVector` is dominated by or equal to `vector` (the content is one of the
/// versions the row's history includes); `syncedAt` is the row's change stamp (updatedAt, whole seconds) as of the last time
/// this device bumped or adopted the row; RowClock compares it for inequality only. RowVersion
/// backs no leaf: writing it alone never dirties the state.
public struct RowVersion: Sendable, Hashable {
    /// The row's version vector: everything this copy has merged.
    public var vector: VersionVector
    /// The vector of the write that produced the current content (equal to `vector` after a
    /// local edit; kept from the winning side when a merge picks one).
    public var contentVector: VersionVector
    /// The change stamp last accounted for.
    public var syncedAt: Int64

    /// Creates bookkeeping for a row; the content vector defaults to the row's vector.
    public init(vector: VersionVector, syncedAt: Int64, contentVector: VersionVector? = nil) {
        self.vector = vector
        self.contentVector = contentVector ?? vector
        self.syncedAt = syncedAt
    }
}

/// A deleted row's key and the vector of the delete.
public struct Tombstone: Sendable, Hashable {
    /// The deleted row's key.
    public let key: [UInt8]
    /// The vector the delete was made (or merged) under.
    public let vector: VersionVector

    /// Creates a tombstone.
    public init(key: [UInt8], vector: VersionVector) {
        self.key = key
        self.vector = vector
    }
}

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
