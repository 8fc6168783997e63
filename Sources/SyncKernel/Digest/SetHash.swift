import CSodium

/// A homomorphic set hash (LtHash over 1,024 lanes of 16 bits): the namespace root the fast
/// digest advertises, kept current in O(1) per item.
///
/// Invariants: the value depends only on the multiset of item hashes added minus those removed,
/// never on their order, so equal leaf sets give equal roots whatever the write history; adding
/// then removing an item restores the value exactly. Each item hash is expanded to 2 KiB with
/// ChaCha20 (keyed by the item hash) and added lane by lane modulo 2^16, so forging a different
/// set with the same value is a lattice problem of about 200-bit hardness, where a single 256-bit
/// sum of hashes falls to a generalized-birthday search.
package struct SetHash: Sendable, Hashable {
    /// Lanes per value.
    package static let laneCount = 1024
    /// Bytes of the persisted form (`encoded()`).
    package static let byteCount = 2 * laneCount
    /// The root advertised for a namespace holding no item.
    package static let emptyRoot = [UInt8](repeating: 0, count: 32)
    private static let rootDomain = Array("synckernel.setroot".utf8)

    /// The lanes.
    private var lanes: [UInt16]

    /// The hash of the empty set (all lanes zero).
    package init() {
        lanes = [UInt16](repeating: 0, count: SetHash.laneCount)
    }

    /// Reads a persisted value; throws `corruptBookkeeping` unless it is exactly `byteCount` bytes.
    package init(decoding bytes: [UInt8]) throws(SyncKernelError) {
        guard bytes.count == SetHash.byteCount else {
            throw SyncKernelError(.corruptBookkeeping, "a set hash is \(SetHash.byteCount) bytes")
        }
        lanes = (0..<SetHash.laneCount).map { UInt16(bytes[2 * $0]) | UInt16(bytes[2 * $0 + 1]) << 8 }
    }

    /// The persisted form: each lane little-endian, in lane order.
    package func encoded() -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(SetHash.byteCount)
        for lane in lanes {
            out.append(UInt8(truncatingIfNeeded: lane))
            out.append(UInt8(truncatingIfNeeded: lane >> 8))
        }
        return out
    }

    /// Adds (`direction` +1) or removes (-1) one 32-byte item hash.
    package mutating func apply(itemHash: [UInt8], direction: Int64) {
        precondition(itemHash.count == 32 && SHA256.ready)
        let nonce = [UInt8](repeating: 0, count: Int(crypto_stream_chacha20_ietf_NONCEBYTES))
        withUnsafeTemporaryAllocation(of: UInt16.self, capacity: SetHash.laneCount) { expanded in
            guard let base = expanded.baseAddress else { return }
            base.withMemoryRebound(to: UInt8.self, capacity: SetHash.byteCount) { bytes in
                _ = crypto_stream_chacha20_ietf(bytes, UInt64(SetHash.byteCount), nonce, itemHash)
            }
            lanes.withUnsafeMutableBufferPointer { lanes in
                if direction > 0 {
                    for index in 0..<SetHash.laneCount { lanes[index] &+= UInt16(littleEndian: expanded[index]) }
                } else {
                    for index in 0..<SetHash.laneCount { lanes[index] &-= UInt16(littleEndian: expanded[index]) }
                }
            }
        }
    }

    /// The 32-byte root over this value and the item count (`emptyRoot` for no item).
    package func root(count: Int64) -> [UInt8] {
        guard count != 0 else { return SetHash.emptyRoot }
        var counted = [UInt8]()
        for shift in stride(from: 56, through: 0, by: -8) { counted.append(UInt8(truncatingIfNeeded: UInt64(bitPattern: count) >> UInt64(shift))) }
        return SHA256.hash(domain: SetHash.rootDomain, counted, encoded())
    }
}
