/// Tells the engine whether the cloud can be used, before every run and probe.
///
/// Invariant: the engine asks it first and does nothing else unless it answers `.available`.
///
/// ## Implementation requirements
/// - `availability()` never touches the cloud storage itself and never throws; a source that
///   cannot tell answers `.noAccount`.
public protocol AvailabilitySource: Sendable {
    /// The current availability.
    func availability() async -> CloudAvailability
}

/// An availability source with a fixed answer, for embedded storages that are always there.
///
/// Invariant: answers the value it was created with, every time.
public struct FixedAvailability: AvailabilitySource {
    /// The answer.
    public let value: CloudAvailability

    /// Creates a source that always answers `value`.
    public init(_ value: CloudAvailability = .available) {
        self.value = value
    }

    /// Returns the fixed answer.
    public func availability() async -> CloudAvailability {
        value
    }
}
