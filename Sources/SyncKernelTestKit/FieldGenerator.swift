import Foundation
import SyncKernel
import SyncKernelSimulator

/// The kit's seeded source of field values; every generated row and schedule comes from it.
///
/// Invariant: one seed gives one sequence of values, so a failure replays exactly from the seed
/// its report prints.
public struct FieldGenerator: Sendable {
    /// The underlying generator.
    public var random: SeededGenerator

    /// Creates a generator from `seed`.
    public init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
    }

    /// A random integer in `range`.
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(random.next() % UInt64(range.count))
    }

    /// True with probability `probability`.
    public mutating func chance(_ probability: Double) -> Bool { random.chance(probability) }

    /// `count` random bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] { random.bytes(count) }

    /// A short random lower-case word.
    public mutating func word() -> String {
        String(decoding: (0..<int(3...8)).map { _ in UInt8(ascii: "a") + UInt8(random.next() % 26) }, as: UTF8.self)
    }

    /// A few random words.
    public mutating func text(words: ClosedRange<Int> = 1...6) -> String {
        (0..<int(words)).map { _ in word() }.joined(separator: " ")
    }

    /// A whole-second date within a few years of 2026.
    public mutating func date() -> Date {
        Date(timeIntervalSince1970: TimeInterval(1_760_000_000 + int(0...100_000_000)))
    }
}
