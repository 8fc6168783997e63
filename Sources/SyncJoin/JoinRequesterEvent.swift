import SyncKernel

/// What a `JoinRequester` reports to its host (a UI, the command line's event lines).
///
/// Invariants: `requestSent` once per send, numbered from 1; `acknowledged` at most once; every
/// dropped reply once (`replyDropped`, nothing changed); `waiting` when the wait starts, when a
/// sibling acknowledges and then at least every `JoinPolicy.countdownIntervalMillis` until the
/// outcome; exactly one outcome event (`granted`, `rejected`, `refused`, `timedOut` or
/// `storeFailed`), the last; no event carries key material.
public enum JoinRequesterEvent: Sendable, Hashable {
    /// The request is being published on the discovery subject (`attempt` 1 is the first send);
    /// reported just before it goes out, so it comes before any event its answer causes.
    case requestSent(attempt: Int)
    /// A sibling of `family` acknowledged: "approve on your `family`".
    case acknowledged(DeviceFamily)
    /// A message of `bytes` bytes on the reply subject was dropped for `reason`.
    case replyDropped(reason: JoinReplyDropReason, bytes: Int)
    /// Approved and stored: the device may now run as a member of the account.
    case granted(JoinedAccount)
    /// The wait ends in `remainingSeconds` (rounded up) unless a decision comes; `acknowledged`
    /// tells which wait runs: a sibling's user's decision, or the re-sends for any sibling.
    case waiting(remainingSeconds: Int, acknowledged: Bool)
    /// Refused by the sibling's user; nothing was stored.
    case rejected
    /// Refused by a sibling without asking its user, for `reason`; nothing was stored.
    case refused(SignInRefusal)
    /// The wait ended without a decision; nothing was stored.
    case timedOut(acknowledged: Bool)
    /// A valid grant came but could not be stored (`error`); nothing was stored.
    case storeFailed(SyncKernelError)
}
