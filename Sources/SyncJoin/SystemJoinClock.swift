import SyncEnvelope

/// The system's calendar clock, waiting with `Task.sleep`.
///
/// Invariant: `millisecondsSince1970` is `SystemWallClock`'s; a sleep never ends before its
/// deadline on that clock has passed as far as `Task.sleep` measures (a calendar jump shortens or
/// lengthens it, which only moves a re-send or a timeout).
public struct SystemJoinClock: JoinClock {
    private let wall = SystemWallClock()

    /// The system clock.
    public init() {}

    /// Milliseconds since 1970, from the system's calendar clock.
    public var millisecondsSince1970: Int64 { wall.millisecondsSince1970 }

    /// Sleeps until `deadline` (milliseconds since 1970).
    public func sleep(untilMillis deadline: Int64) async throws {
        let wait = deadline - millisecondsSince1970
        if wait > 0 { try await Task.sleep(for: .milliseconds(wait)) }
    }
}
