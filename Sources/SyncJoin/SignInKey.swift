import SyncEnvelope
import SyncKernel

/// An account's sign-in verifier: the Ed25519 key that signs its `SignInCertificate`s and the
/// sign-in identity they name. Every sibling pins the verifier's public key; a device holding
/// this key (the account directory's `sign-in.key`) can write sign-in certificates.
///
/// Invariants: the public key is derived from the seed, never stored apart from it; the identity
/// is 32 bytes drawn at random when the key is made (it is derived from no key, so one verifier
/// could vouch for several identities, as the spec's phone-verify service does, and the
/// identity rung of the ladder is not implied by the signature rung); no rendering
/// (`description`, `debugDescription`, `dump`, a mirror) shows the seed or the identity; the
/// file encoding (`encoded()`) is 72 bytes: the magic `SKSIGN`, a zero byte, version 1, the
/// verifier's seed, the identity.
public struct SignInKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The magic and version that open a sign-in key file.
    private static let magic = Array("SKSIGN".utf8) + [0, 1]
    /// Length of a sign-in key file.
    package static let fileBytes = magic.count + Sodium.keyBytes + SignInCertificate.identityBytes

    /// The seed of the verifier's Ed25519 key pair.
    private let verifierSeed: [UInt8]
    /// The verifier's secret key (libsodium's 64-byte layout).
    private let verifierSecretKey: [UInt8]
    /// The verifier's Ed25519 public key: what every sibling pins.
    public let verifierPublicKey: [UInt8]
    /// The account's sign-in identity.
    public let identity: [UInt8]

    /// The key of a 32-byte verifier seed and a 32-byte identity; `invalidDeviceIdentity` for
    /// any other size.
    public init(verifierSeed: [UInt8], identity: [UInt8]) throws(SyncKernelError) {
        guard identity.count == SignInCertificate.identityBytes, let pair = Sodium.signingKeyPair(seed: verifierSeed) else {
            throw SyncKernelError(.invalidDeviceIdentity, "a verifier seed and a sign-in identity are 32 bytes each")
        }
        self.verifierSeed = verifierSeed
        verifierSecretKey = pair.secretKey
        verifierPublicKey = pair.publicKey
        self.identity = identity
    }

    /// A new verifier and identity from `entropy`.
    public static func generate(entropy: EntropySource = .system) throws(SyncKernelError) -> SignInKey {
        try SignInKey(verifierSeed: entropy.bytes(Sodium.keyBytes), identity: entropy.bytes(SignInCertificate.identityBytes))
    }

    /// A certificate of this key's identity, valid until `expiresAt` (seconds since 1970);
    /// `invalidCertificate` for a negative expiry.
    public func issue(expiresAt: Int64) throws(SyncKernelError) -> SignInCertificate {
        try issue(identity: identity, expiresAt: expiresAt)
    }

    /// A certificate of `identity` signed by this verifier (for a verifier that vouches for
    /// several identities, and for tests of the identity rung); `invalidCertificate` for an
    /// identity that is not 32 bytes or a negative expiry.
    public func issue(identity: [UInt8], expiresAt: Int64) throws(SyncKernelError) -> SignInCertificate {
        let body = SignInCertificate.body(identity: identity, expiresAt: expiresAt)
        guard identity.count == SignInCertificate.identityBytes, expiresAt >= 0,
              let signature = Sodium.sign(SignInCertificate.signedMessage(body: body), secretKey: verifierSecretKey) else {
            throw SyncKernelError(.invalidCertificate, "the sign-in certificate could not be signed")
        }
        return SignInCertificate(identity: identity, expiresAt: expiresAt, signature: signature)
    }

    /// The key file's bytes.
    package func encoded() -> [UInt8] {
        Self.magic + verifierSeed + identity
    }

    /// Reads a sign-in key file's bytes; `malformedKeyFile` for any other length, magic or
    /// version.
    package init(decodingFile bytes: [UInt8]) throws(SyncKernelError) {
        guard bytes.count == Self.fileBytes, bytes.starts(with: Self.magic) else {
            throw SyncKernelError(.malformedKeyFile, "not a sign-in key file")
        }
        let start = Self.magic.count
        try self.init(verifierSeed: Array(bytes[start..<(start + Sodium.keyBytes)]),
                      identity: Array(bytes[(start + Sodium.keyBytes)...]))
    }

    /// The secrets are never shown.
    public var description: String { "SignInKey(secrets redacted)" }

    /// The same as `description`.
    public var debugDescription: String { description }

    /// A mirror with no children, so `dump` and reflection show `description` only.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
