/// How far a frame's timestamp may be from this device's clock, and how many frame ids the seen
/// set keeps.
///
/// Invariants: a frame is inside the window when `now - pastMillis <= timestamp <= now +
/// futureMillis`; the seen set holds every accepted frame id until its timestamp leaves the
/// window, and at most `maxEntries` of them (beyond that, the oldest are given up and every
/// frame no newer than them is refused, so the bound never reopens a replay). Devices whose
/// clocks differ by more than the window cannot exchange frames (their frames drop as
/// `outsideWindow`, counted and reported).
public struct ReplayWindow: Sendable, Hashable {
    /// How old a frame may be, in milliseconds (default 5 minutes).
    public var pastMillis: Int64 = 300_000
    /// How far ahead of this device's clock a frame may be, in milliseconds (default 5 minutes).
    public var futureMillis: Int64 = 300_000
    /// The most frame ids kept (default 100,000: under 5 MB on disk).
    public var maxEntries = 100_000

    /// The defaults.
    public init() {}

    /// The oldest timestamp inside the window at `now` (milliseconds since 1970), saturating.
    package func oldest(at now: Int64) -> Int64 {
        let (low, overflow) = now.subtractingReportingOverflow(pastMillis)
        return overflow ? Int64.min : low
    }

    /// Whether `timestamp` is inside the window at `now` (both milliseconds since 1970).
    package func contains(_ timestamp: Int64, at now: Int64) -> Bool {
        let (high, overflow) = now.addingReportingOverflow(futureMillis)
        return timestamp >= oldest(at: now) && timestamp <= (overflow ? Int64.max : high)
    }
}
