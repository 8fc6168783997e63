import SyncKernelSimulator

/// Seeded byte-level mutations for the short in-test fuzz run: bit flips, CBOR-significant bytes,
/// inserted, deleted and repeated ranges, truncation and splices with another seed.
///
/// Invariant: one seed gives one sequence of mutants (the test prints the seed and the mutant's
/// index on a failure, so it replays exactly); a mutant is never longer than `maxBytes`.
package struct FuzzMutator: Sendable {
    /// The longest mutant produced.
    package static let maxBytes = 1 << 16

    /// Bytes that change the meaning of a CBOR head: the length-width markers, indefinite
    /// lengths, break, floats and simple values, and the extremes.
    private static let interesting: [UInt8] = [0x00, 0x01, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1f, 0x3f, 0x5f, 0x7f, 0x80,
                                                0x9f, 0xa0, 0xbf, 0xc0, 0xf4, 0xf5, 0xf6, 0xf7, 0xf9, 0xfb, 0xff]

    private var random: SeededGenerator

    /// Creates a mutator from `seed`.
    package init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
    }

    /// `input` after one to four mutations, splicing from `other` when one is drawn.
    package mutating func mutate(_ input: [UInt8], other: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0..<(1 + pick(4)) {
            switch pick(8) {
            case 0 where !bytes.isEmpty:
                let at = pick(bytes.count)
                bytes[at] ^= 1 << UInt8(pick(8))
            case 1 where !bytes.isEmpty:
                bytes[pick(bytes.count)] = Self.interesting[pick(Self.interesting.count)]
            case 2:
                bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: pick(bytes.count + 1))
            case 3 where !bytes.isEmpty:
                let start = pick(bytes.count)
                bytes.removeSubrange(start..<min(bytes.count, start + 1 + pick(16)))
            case 4 where !bytes.isEmpty:
                bytes.removeLast(pick(bytes.count))
            case 5 where !bytes.isEmpty:
                let start = pick(bytes.count)
                let chunk = bytes[start..<min(bytes.count, start + 1 + pick(32))]
                bytes.insert(contentsOf: chunk, at: pick(bytes.count + 1))
            case 6 where !other.isEmpty:
                let start = pick(other.count)
                let chunk = other[start..<min(other.count, start + 1 + pick(64))]
                let at = pick(bytes.count + 1)
                bytes.replaceSubrange(at..<min(bytes.count, at + chunk.count), with: chunk)
            default:
                if !bytes.isEmpty { bytes[pick(bytes.count)] = UInt8(truncatingIfNeeded: random.next()) }
            }
        }
        return Array(bytes.prefix(Self.maxBytes))
    }

    /// A number in `0..<count` (`count` > 0).
    private mutating func pick(_ count: Int) -> Int {
        Int(random.next() % UInt64(count))
    }
}
