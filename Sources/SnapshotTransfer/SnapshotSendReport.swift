/// What a sibling's snapshot export did and how long each step took.
///
/// Invariant: the three step times are disjoint shares of `totalTime` (reading the store and
/// encoding pages, sealing and hashing, the blob store's own writing), since the steps run
/// interleaved in one stream.
public struct SnapshotSendReport: Sendable, Hashable {
    /// The algorithm chosen.
    public var algorithm: SealingAlgorithm?
    /// Pages, rows and delete versions exported.
    public var pages: Int64 = 0
    /// Rows exported.
    public var rows: Int64 = 0
    /// Delete versions exported.
    public var deletes: Int64 = 0
    /// Keys left out (device-derived, or damaged and quarantined).
    public var keysLeftOut: Int64 = 0
    /// Plaintext bytes.
    public var plaintextBytes: Int64 = 0
    /// Sealed bytes stored.
    public var sealedBytes: Int64 = 0
    /// Reading the store and encoding pages.
    public var exportTime: Duration = .zero
    /// Sealing and hashing.
    public var sealTime: Duration = .zero
    /// The blob store's writing (the rest of the put).
    public var uploadTime: Duration = .zero
    /// The whole answer.
    public var totalTime: Duration = .zero

    /// An empty report.
    public init() {}
}
