/// What a sibling's guard ladder decided about one sign-in request.
///
/// Invariant: exactly one of the two; a dropped request's contents are never returned.
public enum SignInVerdict: Sendable, Hashable {
    /// Every rung passed: acknowledge it and ask the user.
    case accepted(SignInRequest)
    /// Dropped silently, for this reason.
    case dropped(SignInDropReason)
}
