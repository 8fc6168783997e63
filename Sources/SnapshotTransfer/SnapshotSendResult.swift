import SyncKernel

/// A sibling's answer to a snapshot request: the message to seal back, what happened, and the
/// error behind a failure.
///
/// Invariant: `message` is `.offer` exactly when `error` is nil, `.broken` otherwise (the stage
/// named where the error arose).
public struct SnapshotSendResult: Sendable {
    /// The answer to send: an offer, or the report of a failure.
    public let message: TransferMessage
    /// What the export did.
    public let report: SnapshotSendReport
    /// The failure, if any (for the sibling's own log; only its code travels).
    public let error: (any Error)?
}
