/// What a sibling decided about one message on its discovery subject: a sign-in request the
/// ladder accepted or dropped, or another member's notice.
///
/// Invariant: exactly one of the three; a dropped request's contents are never returned.
public enum SignInVerdict: Sendable, Hashable {
    /// Every rung passed: acknowledge it and ask the user.
    case accepted(SignInRequest)
    /// Dropped for this reason (answered with a refusal only for SJ112 to SJ115).
    case dropped(SignInDropReason)
    /// A member's notice (`JoinNotice`), opened and applied: prompts withdrawn, the ledger merged.
    case notice(JoinNotice.Kind)
}
