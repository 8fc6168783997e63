import SyncEnvelope
import SyncKernel

/// Why a transfer message was dropped.
///
/// Invariant: a drop names the first check that failed: the envelope gate's own, then the
/// account, then the message's decoding.
public enum TransferDropReason: Sendable, Hashable {
    /// The envelope gate dropped the envelope (another account's certificate is `foreignAccount`
    /// there already).
    case envelope(EnvelopeDropReason)
    /// The envelope was accepted but its certificate names another account than this device's.
    case foreignAccount
    /// The frame is not a transfer message this build reads; the decoding error's stable code
    /// string (`SnapshotTransferError`'s "SK214" for another magic, version or kind, the kernel's
    /// "SK101" for bytes cut short, ...).
    case malformed(code: String)
}
