/// One live version of a causally tracked key, decoded: what an app shows when two devices
/// edited the same row concurrently, and what it passes back to `NamespaceTransaction.resolve`.
///
/// Invariants: as `ConflictVersion` (of which it is the decoded form): a key's versions are
/// pairwise concurrent, exactly one is visible, and `writer` decides nothing.
public struct KeyVersion<Row: Sendable>: Sendable {
    /// The key.
    public let key: [UInt8]
    /// The row of this version.
    public let row: Row
    /// The vector of the write that made this version.
    public let vector: VersionVector
    /// The device that wrote it, when known.
    public let writer: DeviceID?
    /// Whether readers see this version.
    public let isVisible: Bool

    /// A decoded version.
    public init(key: [UInt8], row: Row, vector: VersionVector, writer: DeviceID?, isVisible: Bool) {
        self.key = key
        self.row = row
        self.vector = vector
        self.writer = writer
        self.isVisible = isVisible
    }
}

extension KeyVersion: Equatable where Row: Equatable {}
extension KeyVersion: Hashable where Row: Hashable {}
