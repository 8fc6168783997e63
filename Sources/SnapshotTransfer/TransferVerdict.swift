import SyncKernel

/// What `TransferMessage.accept(_:account:)` decided about one envelope.
///
/// Invariant: exactly one of the two; a dropped message is never returned.
public enum TransferVerdict: Sendable, Hashable {
    /// A sibling of this account sent this message.
    case accepted(sender: DeviceID, message: TransferMessage)
    /// The envelope or its message was dropped, for this reason.
    case dropped(TransferDropReason)
}
