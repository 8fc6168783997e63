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

    /// The dimension device `device` counts its writes under in epoch `number`: the device itself
    /// for epoch 0 (so stores and vectors from before epochs keep their meaning), otherwise
    /// SHA-256 of the device key, the epoch number and a random `nonce` under its own domain.
    /// The nonce makes two epochs of one number distinct when two copies of one store each take
    /// one (an original and a restored copy both moving from epoch 0 to 1); nothing secret goes in.
    package static func epoch(_ number: UInt64, of device: DeviceID, nonce: [UInt8]) -> DeviceID {
        guard number > 0 else { return device }
        let counter = withUnsafeBytes(of: number.bigEndian) { Array($0) }
        return DeviceID(validated: SHA256.hash(domain: epochDomain, device.publicKey, counter, nonce))
    }

    /// The dimension that tells apart two versions of `key` that carry one vector but different
    /// content (`leaf`, or no bytes for a delete): a collision of two writes counted alike, which
    /// only a store that lost its history makes. Named by content, so every device that separates
    /// the same two versions derives the same vectors (`VersionVector.separatingCollisions`).
    package static func collision(key: [UInt8], content: [UInt8]) -> DeviceID {
        DeviceID(validated: SHA256.hash(domain: collisionDomain, key, content))
    }

    /// Stands, inside a decoded shipped row's vector, for the creation dimension of that row's
    /// own content; the merge replaces it by `creation(key:leaf:)` of the row before any use, so
    /// it is never stored (32 zero bytes, which no key pair yields).
    package static let ownCreation = DeviceID(validated: [UInt8](repeating: 0, count: 32))

    /// Stands, inside a decoded push's vector, for the sender's current epoch when the reader
    /// does not know it (`DeviceTable.epochIndex` from a sibling whose epoch it holds none or
    /// several of): the merge leaves a row or delete that names it unmerged
    /// (`ApplyOutcome.unresolvedKeys`), so it is never stored (32 bytes of 0xff).
    package static let unresolvedEpoch = DeviceID(validated: [UInt8](repeating: 0xff, count: 32))

    /// The domain of creation dimensions.
    private static let creationDomain = Array("synckernel.creation".utf8)
    /// The domain of epoch dimensions.
    private static let epochDomain = Array("synckernel.device-epoch".utf8)
    /// The domain of collision dimensions.
    private static let collisionDomain = Array("synckernel.collision".utf8)

    /// Lower-case hex of the key.
    public var hex: String { Hex.encode(publicKey) }

    public var description: String { String(hex.prefix(8)) }

    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool {
        lhs.publicKey.lexicographicallyPrecedes(rhs.publicKey)
    }
}
