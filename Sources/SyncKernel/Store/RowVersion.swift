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
