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
