/// Waits for a while; injected wherever the engine or a backend waits (Retry-After, slow writes).
///
/// Invariant: waits no longer than asked.
///
/// ## Implementation requirements
/// - `sleep` returns after at most `seconds` (tests return at once and record the request) and
///   throws `CancellationError` when the task is cancelled.
public protocol Sleeper: Sendable {
    /// Waits `seconds`.
    func sleep(seconds: Double) async throws
}

/// The real sleeper, on `Task.sleep`.
///
/// Invariant: honours cancellation.
public struct TaskSleeper: Sleeper {
    /// Creates the real sleeper.
    public init() {}

    /// Sleeps for `seconds` (nothing for zero or less).
    public func sleep(seconds: Double) async throws {
        guard seconds > 0 else { return }
        try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }
}
