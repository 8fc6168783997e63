import SyncKernel

/// How a device asking to join re-sends and how long it waits.
///
/// Invariants (checked by `validated()`): at least one send, a positive interval, a decision
/// wait at least as long as the re-send span (`maxSends` times the interval) and at most
/// `SignInRequest.maxWaitMillis`, and a positive countdown interval. With the defaults the
/// request goes out at 0, 5, ..., 30 s (7 sends, about 35 s of coverage for a sibling that is
/// still connecting); without an acknowledgement by 35 s the wait ends (no sibling answered);
/// with one it ends at 180 s unless a decision came; the time left is reported every 5 s.
public struct JoinPolicy: Sendable, Hashable {
    /// Milliseconds between sends while no sibling has acknowledged (default 5 s).
    public var resendIntervalMillis: Int64 = 5_000
    /// Sends at most, the first included (default 7).
    public var maxSends = 7
    /// Milliseconds from the first send until the wait ends without a decision (default 180 s).
    public var decisionWaitMillis: Int64 = 180_000
    /// Milliseconds between two `waiting` events (the countdown) while the wait runs (default 5 s).
    public var countdownIntervalMillis: Int64 = 5_000

    /// The defaults.
    public init() {}

    /// The policy, or `limitExceeded` when it breaks an invariant.
    public func validated() throws(SyncKernelError) -> JoinPolicy {
        guard maxSends >= 1, resendIntervalMillis > 0, maxSends <= 1_000, countdownIntervalMillis > 0,
              decisionWaitMillis >= Int64(maxSends) * resendIntervalMillis,
              decisionWaitMillis <= SignInRequest.maxWaitMillis else {
            throw SyncKernelError(.limitExceeded, "a join policy sends at least once and waits no longer than 10 minutes")
        }
        return self
    }
}
