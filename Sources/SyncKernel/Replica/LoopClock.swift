/// The clock a `ReplicaHost` runs its timers on, in milliseconds.
///
/// ## Implementation requirements
/// - `now` never goes backwards.
/// - `sleep(until:)` returns once `now` has reached the deadline, or throws when the waiting
///   task is cancelled.
public protocol LoopClock: Sendable {
    /// The current time in milliseconds.
    var now: Int64 { get }
    /// Waits until `deadline`.
    func sleep(until deadline: Int64) async throws
}

/// The host's real clock: milliseconds of a monotonic `ContinuousClock` since creation.
public struct ContinuousLoopClock: LoopClock {
    private let origin = ContinuousClock.now

    /// A clock starting at zero now.
    public init() {}

    public var now: Int64 {
        let elapsed = ContinuousClock.now - origin
        return elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
    }

    public func sleep(until deadline: Int64) async throws {
        let wait = deadline - now
        if wait > 0 { try await Task.sleep(for: .milliseconds(wait)) }
    }
}
