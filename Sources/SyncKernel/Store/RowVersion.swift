/// The kernel's bookkeeping for one causally tracked row: its vector and the stamp last accounted for.
///
/// Invariant: `syncedAt` is the row's change stamp (updatedAt, whole seconds) as of the last time
/// this device bumped or adopted the row; RowClock compares it for inequality only. RowVersion
/// backs no leaf: writing it alone never dirties the state.
public struct RowVersion: Sendable, Hashable {
    /// The row's version vector.
    public var vector: VersionVector
    /// The change stamp last accounted for.
    public var syncedAt: Int64

    /// Creates bookkeeping for a row.
    public init(vector: VersionVector, syncedAt: Int64) {
        self.vector = vector
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
