import SyncKernel

/// What absorbing an offered snapshot did and how long each step took.
///
/// Invariant: the steps ran one after the other (fetch and hash, authenticate every chunk,
/// decrypt and import), so their times add up to about `totalTime`.
public struct SnapshotAbsorbReport: Sendable, Hashable {
    /// Sealed bytes fetched.
    public var sealedBytes: Int64 = 0
    /// Pages read.
    public var pages: Int64 = 0
    /// Rows read.
    public var rows: Int64 = 0
    /// Delete versions read.
    public var deletes: Int64 = 0
    /// What the import changed.
    public var outcome = SnapshotImportOutcome()
    /// Fetching the blob into the spool file and hashing it.
    public var downloadTime: Duration = .zero
    /// Authenticating every chunk.
    public var verifyTime: Duration = .zero
    /// Decrypting, decoding and importing.
    public var importTime: Duration = .zero
    /// The whole absorb.
    public var totalTime: Duration = .zero

    /// An empty report.
    public init() {}
}
