import Foundation
import SyncKernel
import SyncKernelSimulator

/// The kit's seeded source of field values; every generated row and schedule comes from it.
///
/// Values lean towards the edges where encodings and merges break: text mixes plain words with
/// empty and very long strings, canonically equivalent forms ("é" precomposed and decomposed,
/// "Å" as one, two or the Ångström sign), combining marks, emoji sequences and right-to-left
/// scripts; byte strings are often empty or drawn from a small pool, so two devices pick the same
/// one; dates are whole seconds, sometimes at the epoch, before it or in year 9999.
///
/// Invariant: one seed gives one sequence of values, so a failure replays exactly from the seed
/// its report prints.
public struct FieldGenerator: Sendable {
    /// The underlying generator.
    public var random: SeededGenerator

    /// Strings that look alike but differ in bytes, or stress UTF-8 and ordering.
    public static let trickyTexts: [String] = [
        "", "\u{E9}", "e\u{301}", "\u{C5}", "A\u{30A}", "\u{212B}", "\u{FB01}", "fi", "\u{1F600}", "\u{1F44D}\u{1F3FD}",
        "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", "\u{2764}", "\u{2764}\u{FE0F}", "\u{5E9}\u{5DC}\u{5D5}\u{5DD}",
        "\u{645}\u{631}\u{62D}\u{628}\u{627}", "\u{65E5}\u{672C}\u{8A9E}", "\u{200F}x", "a\u{0}b", " ", "Z", "z",
    ]

    /// Strings with combining forms: each differs in bytes from its other normalisation form.
    public static let confusables: [String] = ["\u{E9}", "e\u{301}", "\u{C5}", "A\u{30A}", "\u{212B}", "\u{1E69}", "s\u{323}\u{307}"]

    /// Byte strings that two devices are likely to pick alike.
    public static let pooledBytes: [[UInt8]] = [[], [0], [0xff], [1, 2, 3], [UInt8](repeating: 0, count: 32)]

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

    /// One of `items` (which must not be empty).
    public mutating func pick<Item>(_ items: [Item]) -> Item { items[int(0...(items.count - 1))] }

    /// `count` random bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] { random.bytes(count) }

    /// A byte string of any length: often empty or from `pooledBytes`, else 1 to 32 random bytes.
    public mutating func anyBytes() -> [UInt8] {
        chance(0.35) ? pick(Self.pooledBytes) : bytes(int(1...32))
    }

    /// A short random lower-case ASCII word.
    public mutating func word() -> String {
        String(decoding: (0..<int(3...8)).map { _ in UInt8(ascii: "a") + UInt8(random.next() % 26) }, as: UTF8.self)
    }

    /// Text: usually a few words, often with tricky pieces, sometimes empty or 600 characters long.
    public mutating func text(words: ClosedRange<Int> = 1...6) -> String {
        switch int(0...9) {
        case 0: return pick(Self.trickyTexts)
        case 1: return String(repeating: pick(["x", "\u{E9}", "\u{1F600}"]), count: 600)
        case 2, 3, 4: return (0..<int(1...3)).map { _ in chance(0.5) ? pick(Self.trickyTexts) : word() }.joined(separator: " ")
            + pick(Self.confusables)
        default: return (0..<int(words)).map { _ in word() }.joined(separator: " ")
        }
    }

    /// A whole-second date: usually within a few years of 2026, sometimes at an edge.
    public mutating func date() -> Date {
        if chance(0.08) { return Date(timeIntervalSince1970: pick([0, -1, -62_135_596_800, 253_402_300_799])) }
        return Date(timeIntervalSince1970: TimeInterval(1_760_000_000 + int(0...100_000_000)))
    }

    /// A signed integer: usually small, sometimes 0, -1 or an extreme.
    public mutating func int64() -> Int64 {
        chance(0.15) ? pick([0, -1, Int64.min, Int64.max]) : Int64(int(-1_000_000...1_000_000))
    }

    /// An unsigned integer: usually small, sometimes 0 or the maximum.
    public mutating func uint64() -> UInt64 {
        chance(0.15) ? pick([0, UInt64.max]) : UInt64(int(0...1_000_000))
    }
}
