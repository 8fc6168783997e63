/// The convergence loop's timings, in milliseconds of the host's clock (real or virtual).
///
/// Invariant: the defaults are the spec's figures: a 400 ms debounce for local writes; the storm
/// guard trips on more than 8 rounds without progress with one sibling inside 10 s (rounds of one
/// namespace whose pair of roots was already seen in the window, see `Replica`) and backs off
/// for 30 s.
public struct LoopTiming: Sendable, Hashable {
    /// Coalescing window between a local write and the digest broadcast.
    public var debounceMillis: Int64 = 400
    /// Rounds without progress of one namespace with one sibling allowed inside
    /// `stormWindowMillis` before the guard trips (a round makes progress when it reaches a pair of
    /// roots, ours and the sibling's, not seen in the window).
    public var stormRoundLimit = 8
    /// How long a sent `reconcile_req` blocks another for the same sibling and namespace while
    /// its response (or the silence of a responder with nothing to give) is awaited.
    public var requestTimeoutMillis: Int64 = 1_500
    /// The storm guard's sliding window.
    public var stormWindowMillis: Int64 = 10_000
    /// How long the pair backs off after the guard trips.
    public var stormBackoffMillis: Int64 = 30_000
    /// First delay before re-advertising to a sibling whose last digest still differs from ours.
    public var retryMillis: Int64 = 2_000
    /// Longest delay between such re-advertisements (they double up to it).
    public var maxRetryMillis: Int64 = 30_000

    /// The spec's timings.
    public init() {}
}
