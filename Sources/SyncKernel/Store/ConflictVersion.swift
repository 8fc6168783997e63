/// One live version of a causally tracked key, as the conflict API shows it without decoding:
/// the row's bytes and leaf, the vector of the write that made it and the device that wrote it.
///
/// Invariants: a key's live versions are pairwise concurrent (no version's vector dominates
/// another's: a causally later write or delete replaced any that was dominated); exactly one of
/// them is visible (the one the namespace's tie-break prefers, on every device that holds the
/// same versions), and a key is in conflict exactly when they hold more than one leaf (concurrent
/// writes of one content are kept apart, so the merge stays order-free, but are no conflict). `writer` is nil
/// when unknown (a row registered before any write was counted, or a version from a build that
/// shipped no writer); it is bookkeeping for people and decides nothing.
public struct ConflictVersion: Sendable, Hashable {
    /// The key.
    public let key: [UInt8]
    /// The row encoding, as the namespace's declaration wrote it.
    public let row: [UInt8]
    /// The row's leaf hash (32 bytes).
    public let leaf: [UInt8]
    /// The vector of the write that made this version.
    public let vector: VersionVector
    /// The device that wrote it, when known.
    public let writer: DeviceID?
    /// Whether readers see this version (`KernelStore.row`).
    public let isVisible: Bool

    /// A version as read from a store.
    public init(key: [UInt8], row: [UInt8], leaf: [UInt8], vector: VersionVector, writer: DeviceID?, isVisible: Bool) {
        self.key = key
        self.row = row
        self.leaf = leaf
        self.vector = vector
        self.writer = writer
        self.isVisible = isVisible
    }
}
