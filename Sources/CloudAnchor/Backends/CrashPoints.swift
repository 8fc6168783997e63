import Synchronization

/// Numbered points where a test's modelled process "dies": the fault-injecting backend passes two
/// around every write, download and delete, and a state store can pass one inside every
/// transaction.
///
/// Invariant: points are numbered from 1 in the order they are passed; passing point `crashAt`
/// throws `Crash` once, and every later point passes.
public final class CrashPoints: Sendable {
    /// The error thrown at the chosen point; the engine never catches it.
    public struct Crash: Error, Sendable, Hashable {
        /// The point that crashed.
        public let point: Int
        /// What was happening there.
        public let label: String
    }

    private struct Counter {
        var passed = 0
        var crashAt: Int?
    }

    private let counter: Mutex<Counter>

    /// Creates the points; `crashAt` nil never crashes (a dry run that counts them).
    public init(crashAt: Int? = nil) {
        counter = Mutex(Counter(crashAt: crashAt))
    }

    /// How many points were passed.
    public var passed: Int {
        counter.withLock { $0.passed }
    }

    /// Passes the next point, throwing `Crash` when it is the chosen one.
    public func pass(_ label: String) throws {
        let crash: Crash? = counter.withLock { counter in
            counter.passed += 1
            guard counter.passed == counter.crashAt else { return nil }
            counter.crashAt = nil
            return Crash(point: counter.passed, label: label)
        }
        if let crash { throw crash }
    }
}
