import SyncEnvelope
import SyncKernel

/// Proof of control of an account's sign-in identity: the identity and an expiry, signed by the
/// sign-in verifier key the account pins. A device asking to join carries one in its request; a
/// sibling admits nothing without one that verifies, has not expired and names its own identity.
/// (The spec's phone-ownership certificate, made here by `synckernel account sign-in-cert`.)
///
/// The encoding is fixed-length and hand-written (105 bytes, big-endian integers):
///
///     0    1   version (1)
///     1   32   the sign-in identity
///    33    8   expiry, seconds since 1970 (at most `Int64.max`)
///    41   64   Ed25519 signature by the verifier over "synckernel.sign-in-certificate.v1" ‖ bytes 0..<41
///
/// Invariants: `encoded()` is the only encoding and `init?(parsing:)` reads back exactly the
/// bytes it wrote (no other length, version or expiry above `Int64.max` parses); the signature's
/// domain differs from every other signature's in the package, so a verifier signs nothing else
/// by mistake; `description` shows the expiry only (the identity names the account to whoever
/// reads it).
public struct SignInCertificate: Sendable, Hashable, CustomStringConvertible {
    /// The encoding's version byte.
    package static let version: UInt8 = 1
    /// Bytes of a sign-in identity.
    public static let identityBytes = 32
    /// Bytes 0..<41, the signed body.
    package static let bodyBytes = 1 + identityBytes + 8
    /// Length of the encoding.
    public static let byteCount = bodyBytes + 64
    /// What the verifier's signature covers before the body.
    private static let signatureDomain = Array("synckernel.sign-in-certificate.v1".utf8)

    /// The sign-in identity the certificate proves control of.
    public let identity: [UInt8]
    /// The first second (since 1970) the certificate is no longer valid.
    public let expiresAt: Int64
    /// The verifier's Ed25519 signature.
    public let signature: [UInt8]

    /// A certificate from its parts, as the verifier signed them (checked by `verify(verifier:)`).
    package init(identity: [UInt8], expiresAt: Int64, signature: [UInt8]) {
        self.identity = identity
        self.expiresAt = expiresAt
        self.signature = signature
    }

    /// Reads a certificate from exactly `byteCount` bytes; nil for another length or version or
    /// an expiry beyond `Int64.max`. Nothing is verified here.
    package init?(parsing bytes: ArraySlice<UInt8>) {
        guard bytes.count == Self.byteCount, bytes.first == Self.version else { return nil }
        let base = bytes.startIndex
        var expiry: UInt64 = 0
        for byte in bytes[(base + 33)..<(base + 41)] { expiry = expiry << 8 | UInt64(byte) }
        guard let expiresAt = Int64(exactly: expiry) else { return nil }
        self.init(identity: Array(bytes[(base + 1)..<(base + 33)]), expiresAt: expiresAt,
                  signature: Array(bytes[(base + Self.bodyBytes)..<(base + Self.byteCount)]))
    }

    /// The signed body: version, identity and expiry.
    package static func body(identity: [UInt8], expiresAt: Int64) -> [UInt8] {
        [version] + identity + withUnsafeBytes(of: UInt64(clamping: expiresAt).bigEndian) { Array($0) }
    }

    /// The bytes the verifier signs for a body.
    package static func signedMessage(body: [UInt8]) -> [UInt8] {
        signatureDomain + body
    }

    /// The canonical encoding: the body, then the signature.
    public func encoded() -> [UInt8] {
        Self.body(identity: identity, expiresAt: expiresAt) + signature
    }

    /// Whether the verifier with Ed25519 public key `verifier` signed this certificate as it
    /// stands.
    public func verify(verifier: [UInt8]) -> Bool {
        guard identity.count == Self.identityBytes else { return false }
        let message = Self.signedMessage(body: Self.body(identity: identity, expiresAt: expiresAt))
        return Sodium.verify(signature, of: message, publicKey: verifier)
    }

    /// Whether the certificate has expired at `now` (milliseconds since 1970).
    public func isExpired(atMillis now: Int64) -> Bool {
        let (limit, overflow) = expiresAt.multipliedReportingOverflow(by: 1_000)
        return !overflow && now >= limit
    }

    /// The expiry only.
    public var description: String { "SignInCertificate(expiresAt: \(expiresAt))" }
}
