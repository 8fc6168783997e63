import SyncKernel

/// An account's secret material: the account seed (32 random bytes, from which every sibling
/// derives the channel keys) and the issuer's Ed25519 key, which signs the devices' sender
/// certificates; and the account's public userIDHash.
///
/// Invariants: the userIDHash is SHA-256 of the issuer's public key under its own domain, so it
/// names exactly one issuer and reveals neither secret; the seed and the issuer's keys are never
/// part of any rendering (`description`, `debugDescription`, `dump`, a mirror), which shows the
/// first bytes of the userIDHash only; the file encoding (`encoded()`) is 72 bytes: the magic
/// `SKACCT`, a zero byte, version 1, the seed, the issuer's seed.
public struct AccountMaterial: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The magic and version that open an account file.
    private static let magic = Array("SKACCT".utf8) + [0, 1]
    /// Length of an account file.
    package static let fileBytes = magic.count + 2 * Sodium.keyBytes
    /// The domain of the userIDHash.
    private static let userIDDomain = Array("synckernel.account.user-id-hash".utf8)

    /// The account seed (32 bytes).
    package let seed: [UInt8]
    /// The seed of the issuer's Ed25519 key pair.
    package let issuerSeed: [UInt8]
    /// The issuer's secret key (libsodium's 64-byte layout).
    private let issuerSecretKey: [UInt8]
    /// The issuer's Ed25519 public key, which verifies every certificate of the account.
    public let issuerPublicKey: [UInt8]
    /// The account's userIDHash: the account fingerprint a `Replica` is given as its `account`.
    public let userIDHash: [UInt8]

    /// The account of a 32-byte seed and a 32-byte issuer key seed; `invalidDeviceIdentity` for
    /// any other size.
    public init(seed: [UInt8], issuerSeed: [UInt8]) throws(SyncKernelError) {
        guard seed.count == Sodium.keyBytes, let issuer = Sodium.signingKeyPair(seed: issuerSeed) else {
            throw SyncKernelError(.invalidDeviceIdentity, "an account seed and an issuer seed are 32 bytes each")
        }
        self.seed = seed
        self.issuerSeed = issuerSeed
        issuerSecretKey = issuer.secretKey
        issuerPublicKey = issuer.publicKey
        userIDHash = Self.userIDHash(issuerPublicKey: issuer.publicKey)
    }

    /// A new account: a fresh random seed and issuer key from `entropy`.
    public static func generate(entropy: EntropySource = .system) throws(SyncKernelError) -> AccountMaterial {
        try AccountMaterial(seed: entropy.bytes(Sodium.keyBytes), issuerSeed: entropy.bytes(Sodium.keyBytes))
    }

    /// The userIDHash of the account whose issuer has `issuerPublicKey`.
    public static func userIDHash(issuerPublicKey: [UInt8]) -> [UInt8] {
        SHA256.hash(domain: userIDDomain, issuerPublicKey)
    }

    /// Issues a sender certificate binding `device`'s public keys to this account until
    /// `expiresAt` (seconds since 1970).
    public func issue(for device: DeviceKeys, expiresAt: Int64) throws(SyncKernelError) -> SenderCertificate {
        try issue(device: device.device, envelopeKey: device.envelopePublicKey, expiresAt: expiresAt)
    }

    /// Issues a sender certificate binding the public keys of a device this process does not hold
    /// (a device asking to join sends only them) to this account until `expiresAt` (seconds since
    /// 1970); `invalidCertificate` for an envelope key that is not 32 bytes or a negative expiry.
    public func issue(device: DeviceID, envelopeKey: [UInt8], expiresAt: Int64) throws(SyncKernelError) -> SenderCertificate {
        let body = SenderCertificate.body(device: device, envelopeKey: envelopeKey, userIDHash: userIDHash, expiresAt: expiresAt)
        guard envelopeKey.count == Sodium.keyBytes, expiresAt >= 0,
              let signature = Sodium.sign(SenderCertificate.signedMessage(body: body), secretKey: issuerSecretKey) else {
            throw SyncKernelError(.invalidCertificate, "the certificate could not be signed")
        }
        return SenderCertificate(device: device, envelopeKey: envelopeKey, userIDHash: userIDHash, expiresAt: expiresAt,
                                 signature: signature)
    }

    /// The account file's bytes.
    package func encoded() -> [UInt8] {
        Self.magic + seed + issuerSeed
    }

    /// Reads an account file's bytes; `malformedKeyFile` for any other length, magic or version.
    package init(decodingFile bytes: [UInt8]) throws(SyncKernelError) {
        guard bytes.count == Self.fileBytes, bytes.starts(with: Self.magic) else {
            throw SyncKernelError(.malformedKeyFile, "not an account file")
        }
        let start = Self.magic.count
        try self.init(seed: Array(bytes[start..<(start + Sodium.keyBytes)]),
                      issuerSeed: Array(bytes[(start + Sodium.keyBytes)...]))
    }

    /// The first bytes of the userIDHash; the secrets are never shown.
    public var description: String { "AccountMaterial(\(Hex.short(userIDHash)), secrets redacted)" }

    /// The same as `description`.
    public var debugDescription: String { description }

    /// A mirror with no children, so `dump` and reflection show `description` only.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
