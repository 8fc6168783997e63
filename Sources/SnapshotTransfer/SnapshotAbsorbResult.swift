import SyncKernel

/// The requester's outcome of absorbing one offer: the ack to send back, what happened, and the
/// error behind a failure.
///
/// Invariant: `ack.ok` exactly when `error` is nil; a failed ack's reason is `SyncAck.Reason(error)`.
public struct SnapshotAbsorbResult: Sendable {
    /// The ack to seal back to the sibling that offered.
    public let ack: SyncAck
    /// What the absorb did.
    public let report: SnapshotAbsorbReport
    /// The failure, if any: a `SnapshotTransferError` (the blob, its checks, the format), or the
    /// store's `SyncKernelError` (`snapshotStopped` among them).
    public let error: (any Error)?
}
