/// A row's stable cross-device key paired with its 32-byte leaf hash.
///
/// Invariant: `key` orders leaves bytewise; `hash` is SHA-256 over the namespace's leaf domain
/// and the canonical encoding of the row's hashed fields only.
public struct Leaf: Sendable, Hashable {
    /// The row's stable cross-device key.
    public let key: [UInt8]
    /// The leaf hash.
    public let hash: [UInt8]

    /// Creates a leaf.
    public init(key: [UInt8], hash: [UInt8]) {
        self.key = key
        self.hash = hash
    }
}

extension Array where Element == UInt8 {
    /// Bytewise order, the order every leaf list and key range in the kernel uses.
    @inlinable
    package static func keyPrecedes(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        lhs.lexicographicallyPrecedes(rhs)
    }
}

extension Leaf {
    /// The domain of item hashes.
    package static let itemDomain = Array("synckernel.item".utf8)

    /// The hash identifying this (key, leaf) pair in the namespace structure: SHA-256 under
    /// `itemDomain` of the key's length (8 bytes, big-endian), the key and the leaf hash, so two
    /// pairs that differ in key or leaf never share an input.
    package var itemHash: [UInt8] {
        var length = [UInt8]()
        for shift in stride(from: 56, through: 0, by: -8) { length.append(UInt8(truncatingIfNeeded: UInt64(key.count) >> UInt64(shift))) }
        return SHA256.hash(domain: Leaf.itemDomain, length, key, hash)
    }
}
