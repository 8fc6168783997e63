/// A device's identity: its 32-byte public key.
///
/// Invariant: always exactly 32 bytes; compares and orders bytewise, so vector encodings that
/// sort by it are canonical.
public struct DeviceID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The public key bytes.
    public let publicKey: [UInt8]

    /// Wraps a 32-byte public key; throws `invalidDeviceIdentity` for any other length.
    public init(publicKey: [UInt8]) throws(SyncKernelError) {
        guard publicKey.count == 32 else { throw SyncKernelError(.invalidDeviceIdentity, "a device id is 32 bytes") }
        self.publicKey = publicKey
    }

    private init(validated publicKey: [UInt8]) {
        self.publicKey = publicKey
    }

    /// The dimension a creation is counted under (`RowClock`): a hash of the row key and the
    /// created leaf, shaped as a device identity, so every device that creates the same content
    /// for a key counts the same write.
    public static func creation(key: [UInt8], leaf: [UInt8]) -> DeviceID {
        DeviceID(validated: SHA256.hash(domain: creationDomain, key, leaf))
    }

    /// Stands, inside a decoded shipped row's vector, for the creation dimension of that row's
    /// own content; the merge replaces it by `creation(key:leaf:)` of the row before any use, so
    /// it is never stored (32 zero bytes, which no key pair yields).
    package static let ownCreation = DeviceID(validated: [UInt8](repeating: 0, count: 32))

    /// The domain of creation dimensions.
    private static let creationDomain = Array("synckernel.creation".utf8)

    /// Lower-case hex of the key.
    public var hex: String { Hex.encode(publicKey) }

    public var description: String { String(hex.prefix(8)) }

    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool {
        lhs.publicKey.lexicographicallyPrecedes(rhs.publicKey)
    }
}
