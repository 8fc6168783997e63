import SyncEnvelope

/// The clock a `JoinRequester` stamps its requests with and waits on: calendar time in
/// milliseconds since 1970 (the sibling judges the request's timestamp against its own), and a
/// way to sleep until one of its deadlines.
///
/// ## Implementation requirements
/// - `millisecondsSince1970` is this device's best idea of the real time (a sibling drops a
///   request whose timestamp is more than 120 s from its own clock).
/// - `sleep(untilMillis:)` returns at or after `deadline` on this clock (at once when it has
///   passed), or throws when the waiting task is cancelled. A virtual clock in tests may jump to
///   the deadline.
public protocol JoinClock: WallClock {
    /// Waits until this clock reads `deadline` or later.
    func sleep(untilMillis deadline: Int64) async throws
}
