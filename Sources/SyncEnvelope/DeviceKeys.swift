import SyncKernel

/// One device's secret keys: an Ed25519 signing key pair, whose public key is the device's
/// `DeviceID` (the same key pair `DeviceKeyPair` derives), and an X25519 envelope key pair,
/// which envelopes to the device are sealed to.
///
/// Invariants: the public keys are derived from the secrets, never stored apart from them, so
/// they always match; no rendering (`description`, `debugDescription`, `dump`, a mirror) shows a
/// secret, only the device's short id; the file encoding (`encoded()`) is 72 bytes: the magic
/// `SKDEVK`, a zero byte, version 1, the signing seed, the envelope secret key.
public struct DeviceKeys: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The magic and version that open a device key file.
    private static let magic = Array("SKDEVK".utf8) + [0, 1]
    /// Length of a device key file.
    package static let fileBytes = magic.count + 2 * Sodium.keyBytes

    /// The device's identity: its Ed25519 signing public key.
    public let device: DeviceID
    /// The device's X25519 public key.
    public let envelopePublicKey: [UInt8]
    /// The signing key pair.
    package let signing: DeviceKeyPair
    /// The seed of the signing key pair.
    private let signingSeed: [UInt8]
    /// The X25519 secret key.
    package let envelopeSecretKey: [UInt8]

    /// The keys of a 32-byte signing seed and a 32-byte X25519 secret key;
    /// `invalidDeviceIdentity` for any other size.
    public init(signingSeed: [UInt8], envelopeSecretKey: [UInt8]) throws(SyncKernelError) {
        let signing = try DeviceKeyPair(seed: signingSeed)
        guard let envelopePublicKey = Sodium.envelopePublicKey(secretKey: envelopeSecretKey) else {
            throw SyncKernelError(.invalidDeviceIdentity, "an envelope secret key is 32 bytes")
        }
        device = try signing.deviceID
        self.envelopePublicKey = envelopePublicKey
        self.signing = signing
        self.signingSeed = signingSeed
        self.envelopeSecretKey = envelopeSecretKey
    }

    /// New keys from `entropy`.
    public static func generate(entropy: EntropySource = .system) throws(SyncKernelError) -> DeviceKeys {
        try DeviceKeys(signingSeed: entropy.bytes(Sodium.keyBytes), envelopeSecretKey: entropy.bytes(Sodium.keyBytes))
    }

    /// The key file's bytes.
    package func encoded() -> [UInt8] {
        Self.magic + signingSeed + envelopeSecretKey
    }

    /// Reads a device key file's bytes; `malformedKeyFile` for any other length, magic or version.
    package init(decodingFile bytes: [UInt8]) throws(SyncKernelError) {
        guard bytes.count == Self.fileBytes, bytes.starts(with: Self.magic) else {
            throw SyncKernelError(.malformedKeyFile, "not a device key file")
        }
        let start = Self.magic.count
        try self.init(signingSeed: Array(bytes[start..<(start + Sodium.keyBytes)]),
                      envelopeSecretKey: Array(bytes[(start + Sodium.keyBytes)...]))
    }

    /// The device's short id; the secrets are never shown.
    public var description: String { "DeviceKeys(\(device), secrets redacted)" }

    /// The same as `description`.
    public var debugDescription: String { description }

    /// A mirror with no children, so `dump` and reflection show `description` only.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
