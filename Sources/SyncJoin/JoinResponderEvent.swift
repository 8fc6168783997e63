import SyncKernel

/// What a `JoinResponder` reports to its host: every request its ladder dropped, every approval
/// it asks its user for, and how each ended.
///
/// Invariants: every dropped message is reported once (`requestDropped`; nothing was sent back,
/// except a sealed refusal for SJ112 to SJ115); every notice that taught the ledger once
/// (`ledgerLearned`);
/// every accepted one once as `approvalRequested`, after its acknowledgement was sent, and then
/// exactly once as `approved`, `rejected`, `approvalWithdrawn` or `approvalExpired`; no event
/// carries key material.
public enum JoinResponderEvent: Sendable, Hashable {
    /// A message of `bytes` bytes on the discovery subject was dropped for `reason` (silently, or
    /// with a sealed refusal for SJ112 to SJ115).
    case requestDropped(reason: SignInDropReason, bytes: Int)
    /// A request passed every rung and was acknowledged: ask the user (`approve` / `reject`).
    case approvalRequested(PendingApproval)
    /// The user approved: the grant was sent and the new device's certificate recorded.
    case approved(id: ApprovalID, device: DeviceID, name: String)
    /// The user rejected: a rejection was sent, nothing was recorded.
    case rejected(id: ApprovalID)
    /// Nobody decided before the requester's deadline: nothing was sent or recorded.
    case approvalExpired(id: ApprovalID)
    /// The prompt `id` was withdrawn before this device's user decided: another sibling decided,
    /// or the credential was spent or revoked meanwhile (then a refusal was sent).
    case approvalWithdrawn(id: ApprovalID, cause: ApprovalWithdrawal)
    /// Another member's notice taught this device's sign-in ledger `entries` entries.
    case ledgerLearned(entries: Int)
}
