/// A half-open range of row keys, `[lo, hi)`, where `hi == nil` is unbounded above.
///
/// Invariant: the empty `lo` is the bottom of the key space, so `KeyRange(lo: [], hi: nil)`
/// covers every key.
package struct KeyRange: Sendable, Hashable {
    /// Inclusive lower bound.
    package let lo: [UInt8]
    /// Exclusive upper bound, or nil for unbounded.
    package let hi: [UInt8]?

    /// Creates a range.
    package init(lo: [UInt8], hi: [UInt8]?) {
        self.lo = lo
        self.hi = hi
    }

    /// The whole key space.
    package static let all = KeyRange(lo: [], hi: nil)

    /// The least key greater than every key that starts with `prefix` (its last byte below 0xff
    /// raised by one, the bytes after it dropped), nil when there is none (`prefix` is all 0xff
    /// bytes, or empty).
    package static func prefixEnd(_ prefix: [UInt8]) -> [UInt8]? {
        guard let last = prefix.lastIndex(where: { $0 < 0xff }) else { return nil }
        var end = Array(prefix[...last])
        end[last] += 1
        return end
    }

    /// Whether `key` lies in the range.
    package func contains(_ key: [UInt8]) -> Bool {
        guard !key.lexicographicallyPrecedes(lo) else { return false }
        guard let hi else { return true }
        return key.lexicographicallyPrecedes(hi)
    }
}
