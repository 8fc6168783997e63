import SyncKernel

/// A sign-in request that passed a sibling's ladder and waits for its user's decision: what an
/// `approval_requested` event shows.
///
/// Invariants: every field is safe to print (the id is random, the name a valid device name, the
/// device its public key, the credential a hash); `deadline` is the requester's own (it stops waiting then), and the
/// sibling drops the approval at that time by its own clock.
public struct PendingApproval: Sendable, Hashable {
    /// The id an `approve` or `reject` names.
    public let id: ApprovalID
    /// The name the new device asks to be known by.
    public let deviceName: String
    /// The new device (its signing public key; its `description` is a short hex prefix).
    public let device: DeviceID
    /// The sign-in credential the request presented.
    public let credential: CredentialID
    /// When the sibling accepted the request, milliseconds since 1970 (its clock).
    public let requestedAt: Int64
    /// When the requester stops waiting, milliseconds since 1970 (its clock).
    public let deadline: Int64
}
