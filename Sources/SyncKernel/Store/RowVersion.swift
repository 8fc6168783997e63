/// The kernel's bookkeeping for one causally tracked row: its vector, the vector of the write
/// its content came from, the stamp last accounted for, and the device that wrote the content.
///
/// Invariants: `contentVector` is dominated by or equal to `vector` (the content is one of the
/// versions the row's history includes); `syncedAt` is the row's change stamp (updatedAt, whole seconds) as of the last time
/// this device bumped or adopted the row; RowClock compares it for inequality only. RowVersion
/// backs no leaf: writing it alone never dirties the state. `writer` is bookkeeping for people
/// (which device made the visible content): no merge reads it, and it is nil when unknown (a row
/// registered before any write was counted, or content from a build that shipped no writer).
public struct RowVersion: Sendable, Hashable {
    /// The row's version vector: everything this copy has merged.
    public var vector: VersionVector
    /// The vector of the write that produced the current content (equal to `vector` after a
    /// local edit; kept from the winning side when a merge picks one).
    public var contentVector: VersionVector
    /// The change stamp last accounted for.
    public var syncedAt: Int64
    /// The device that wrote the current content, when known.
    public var writer: DeviceID?

    /// Creates bookkeeping for a row; the content vector defaults to the row's vector.
    public init(vector: VersionVector, syncedAt: Int64, contentVector: VersionVector? = nil, writer: DeviceID? = nil) {
        self.vector = vector
        self.contentVector = contentVector ?? vector
        self.syncedAt = syncedAt
        self.writer = writer
    }
}
