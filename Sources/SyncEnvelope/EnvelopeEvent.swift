import SyncKernel

/// What the envelope layer reports to its host, beside the replica's own events.
///
/// Invariants: every envelope the gate drops is reported once (`dropped`), and every frame the
/// sealing transport could not seal once (`sealFailed`), every refused handshake message once
/// (`sessionRefused`); no event carries envelope or key bytes.
public enum EnvelopeEvent: Sendable, Hashable {
    /// The gate dropped an envelope of `bytes` bytes; its frame never reached the replica.
    case dropped(reason: EnvelopeDropReason, bytes: Int)
    /// A frame for `recipient` was not sent: sealing refused it with `error` (no key material,
    /// not a sibling, too large, an expired certificate).
    case sealFailed(recipient: DeviceID, error: SyncKernelError)
    /// A handshake message from `sibling` was refused: it did not decode, or its hello could not
    /// be answered (not a sibling, an ephemeral key of small order). Nothing changed.
    case sessionRefused(sibling: DeviceID)
}
