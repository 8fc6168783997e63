import SyncKernel

/// Where a device asking to join stands.
///
/// Invariants: it moves only forward: `ready`, then `requesting` (counting sends), then possibly
/// `acknowledged`, then exactly one of the five outcomes, which never change; `granted` is
/// reached only after the account directory was written whole.
public enum JoinState: Sendable, Hashable {
    /// Made; nothing sent yet.
    case ready
    /// The request went out `sends` times; no sibling has acknowledged it.
    case requesting(sends: Int)
    /// A sibling of this family acknowledged the request and is asking its user.
    case acknowledged(DeviceFamily)
    /// Approved: the account directory is written; the device may send sibling frames.
    case granted(JoinedAccount)
    /// A sibling's user refused; nothing was stored.
    case rejected
    /// A sibling refused without asking its user (spent, revoked, busy); nothing was stored.
    case refused(SignInRefusal)
    /// The wait ended without a decision; nothing was stored. `acknowledged` tells whether any
    /// sibling answered at all (without one online nothing admits a device).
    case timedOut(acknowledged: Bool)
    /// A valid grant came but its files could not be written (`error`); nothing was stored.
    case failed(SyncKernelError)

    /// Whether the wait is over.
    public var isFinished: Bool {
        switch self {
        case .ready, .requesting, .acknowledged: false
        case .granted, .rejected, .refused, .timedOut, .failed: true
        }
    }
}
