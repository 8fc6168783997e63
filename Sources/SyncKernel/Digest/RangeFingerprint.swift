/// The additive fingerprint of the items in a key range: how many, and the sum of their item
/// hashes' first 16 bytes modulo 2^128.
///
/// Invariants: combining is commutative and invertible (`adding` / `subtracting`), so the
/// fingerprint of a range is the sum of its sub-ranges' and does not depend on write order; two
/// ranges holding the same items have equal fingerprints. Used only to find where two stores
/// differ (a collision costs a missed sub-range, which the namespace root still catches), never as
/// the advertised root.
package struct RangeFingerprint: Sendable, Hashable {
    /// Items in the range.
    package var count: Int64
    /// Sum of the items' 128-bit prefixes, wrapping.
    package var sum: UInt128

    /// The fingerprint of no item.
    package static let empty = RangeFingerprint(count: 0, sum: 0)

    /// Creates a fingerprint.
    package init(count: Int64, sum: UInt128) {
        self.count = count
        self.sum = sum
    }

    /// The contribution of one 32-byte item hash.
    package init(itemHash: [UInt8]) {
        var value: UInt128 = 0
        for byte in itemHash.prefix(16) { value = value << 8 | UInt128(byte) }
        self.init(count: 1, sum: value)
    }

    /// Whether no item is counted and the sum is zero.
    package var isEmpty: Bool { count == 0 && sum == 0 }

    /// This fingerprint with `other`'s items added.
    package func adding(_ other: RangeFingerprint) -> RangeFingerprint {
        RangeFingerprint(count: count &+ other.count, sum: sum &+ other.sum)
    }

    /// This fingerprint with `other`'s items taken away.
    package func subtracting(_ other: RangeFingerprint) -> RangeFingerprint {
        RangeFingerprint(count: count &- other.count, sum: sum &- other.sum)
    }

    /// The 24-byte persisted and wire form: the count (8 bytes) then the sum (16 bytes), big-endian.
    package func encoded() -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(24)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: UInt64(bitPattern: count) >> UInt64(shift))) }
        for shift in stride(from: 120, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: sum >> UInt128(shift))) }
        return out
    }

    /// Reads the 24-byte form; `failure` is the error for any other length (each caller says
    /// whether the bytes came from a peer or from the store).
    package init(decoding bytes: [UInt8], failure: SyncKernelError) throws(SyncKernelError) {
        try self.init(decoding: bytes[...], failure: failure)
    }

    /// Reads the 24-byte form from a slice (a frame's bytes, without copying them out).
    package init(decoding bytes: ArraySlice<UInt8>, failure: SyncKernelError) throws(SyncKernelError) {
        guard bytes.count == 24 else { throw failure }
        var count: UInt64 = 0
        for byte in bytes.prefix(8) { count = count << 8 | UInt64(byte) }
        var sum: UInt128 = 0
        for byte in bytes.dropFirst(8) { sum = sum << 8 | UInt128(byte) }
        self.init(count: Int64(bitPattern: count), sum: sum)
    }
}
