import Foundation

/// The calendar clock envelopes are stamped and checked with, in milliseconds since 1970.
///
/// ## Implementation requirements
/// - `millisecondsSince1970` is this device's best idea of the real time; it may jump (the
///   replay window and certificate expiry are judged against it, so siblings' clocks must agree
///   to within the window).
public protocol WallClock: Sendable {
    /// Milliseconds since 1970-01-01 UTC.
    var millisecondsSince1970: Int64 { get }
}

/// The system's calendar clock.
public struct SystemWallClock: WallClock {
    /// The system clock.
    public init() {}

    public var millisecondsSince1970: Int64 { Int64((Date().timeIntervalSince1970 * 1_000).rounded(.down)) }
}
