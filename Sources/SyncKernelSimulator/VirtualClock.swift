/// A manual clock with an ordered queue of timed events, for deterministic runs.
///
/// Invariants: time never goes backwards; events fire in (time, scheduling order), so two runs
/// that schedule the same events see the same order. Nothing here reads a real clock.
public struct VirtualClock<Event: Sendable>: Sendable {
    /// The current time in milliseconds.
    public private(set) var now: Int64 = 0
    private var queue: [(time: Int64, sequence: UInt64, event: Event)] = []
    private var sequence: UInt64 = 0

    /// A clock at time zero with nothing scheduled.
    public init() {}

    /// Schedules `event` at `time` (clamped to now).
    public mutating func schedule(_ event: Event, at time: Int64) {
        let entry = (time: max(time, now), sequence: sequence, event: event)
        sequence += 1
        let index = insertionIndex(time: entry.time, sequence: entry.sequence)
        queue.insert(entry, at: index)
    }

    /// The time of the earliest scheduled event.
    public var nextTime: Int64? { queue.first?.time }

    /// Whether nothing is scheduled.
    public var isIdle: Bool { queue.isEmpty }

    /// Removes and returns the earliest event, advancing time to it.
    public mutating func popNext() -> Event? {
        guard !queue.isEmpty else { return nil }
        let entry = queue.removeFirst()
        now = max(now, entry.time)
        return entry.event
    }

    /// Advances time to `time` without firing anything (never backwards).
    public mutating func advance(to time: Int64) {
        now = max(now, time)
    }

    private func insertionIndex(time: Int64, sequence: UInt64) -> Int {
        var low = 0
        var high = queue.count
        while low < high {
            let mid = (low + high) / 2
            if (queue[mid].time, queue[mid].sequence) < (time, sequence) { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
