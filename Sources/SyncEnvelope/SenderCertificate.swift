import SyncKernel

/// A device's sender certificate: its two public keys bound to the account's userIDHash until an
/// expiry, signed by the account's issuer key. It travels inside every envelope the device
/// seals, so a receiver learns who sent a frame only after opening it (sealed sender).
///
/// The encoding is fixed-length and hand-written (169 bytes, big-endian integers):
///
///     0    1   version (1)
///     1   32   device id: the device's Ed25519 signing public key
///    33   32   the device's X25519 envelope public key
///    65   32   the account's userIDHash
///    97    8   expiry, seconds since 1970
///   105   64   Ed25519 signature by the issuer over "synckernel.sender-certificate.v1" ‖ bytes 0..<105
///
/// Invariants: `encoded()` is the only encoding and `init?(parsing:)` reads back exactly the
/// bytes it wrote (no other length, version or expiry above `Int64.max` parses); a certificate
/// holds only public values, so its `description` may show them.
public struct SenderCertificate: Sendable, Hashable, CustomStringConvertible {
    /// The encoding's version byte.
    package static let version: UInt8 = 1
    /// Bytes 0..<105, the signed body.
    package static let bodyBytes = 1 + 32 + 32 + 32 + 8
    /// Length of the encoding.
    public static let byteCount = bodyBytes + 64
    /// What the issuer's signature covers before the body, so it can sign nothing else by mistake.
    private static let signatureDomain = Array("synckernel.sender-certificate.v1".utf8)

    /// The device: its Ed25519 signing public key.
    public let device: DeviceID
    /// The device's X25519 key, which envelopes to it are sealed to.
    public let envelopeKey: [UInt8]
    /// The account's userIDHash.
    public let userIDHash: [UInt8]
    /// The first second (since 1970) the certificate is no longer valid.
    public let expiresAt: Int64
    /// The issuer's Ed25519 signature.
    public let signature: [UInt8]

    /// A certificate from its parts, as the issuer signed them (checked by `verify(issuer:)`).
    package init(device: DeviceID, envelopeKey: [UInt8], userIDHash: [UInt8], expiresAt: Int64, signature: [UInt8]) {
        self.device = device
        self.envelopeKey = envelopeKey
        self.userIDHash = userIDHash
        self.expiresAt = expiresAt
        self.signature = signature
    }

    /// Reads a certificate from exactly `byteCount` bytes; nil for any other length, version,
    /// a key of the wrong size or an expiry beyond `Int64.max`. Nothing is verified here.
    package init?(parsing bytes: ArraySlice<UInt8>) {
        guard bytes.count == Self.byteCount, bytes.first == Self.version else { return nil }
        let base = bytes.startIndex
        guard let device = try? DeviceID(publicKey: Array(bytes[(base + 1)..<(base + 33)])) else { return nil }
        var expiry: UInt64 = 0
        for byte in bytes[(base + 97)..<(base + 105)] { expiry = expiry << 8 | UInt64(byte) }
        guard let expiresAt = Int64(exactly: expiry) else { return nil }
        self.init(device: device, envelopeKey: Array(bytes[(base + 33)..<(base + 65)]),
                  userIDHash: Array(bytes[(base + 65)..<(base + 97)]), expiresAt: expiresAt,
                  signature: Array(bytes[(base + Self.bodyBytes)..<(base + Self.byteCount)]))
    }

    /// Reads a certificate file's bytes; `malformedKeyFile` when they are not one.
    public init(decoding bytes: [UInt8]) throws(SyncKernelError) {
        guard let certificate = SenderCertificate(parsing: bytes[...]) else {
            throw SyncKernelError(.malformedKeyFile, "not a sender certificate")
        }
        self = certificate
    }

    /// The signed body: version, device, envelope key, userIDHash and expiry.
    package static func body(device: DeviceID, envelopeKey: [UInt8], userIDHash: [UInt8], expiresAt: Int64) -> [UInt8] {
        var bytes = [version] + device.publicKey + envelopeKey + userIDHash
        bytes += withUnsafeBytes(of: UInt64(clamping: expiresAt).bigEndian) { Array($0) }
        return bytes
    }

    /// The bytes the issuer signs for a body.
    package static func signedMessage(body: [UInt8]) -> [UInt8] {
        signatureDomain + body
    }

    /// The canonical encoding: the body, then the signature.
    public func encoded() -> [UInt8] {
        Self.body(device: device, envelopeKey: envelopeKey, userIDHash: userIDHash, expiresAt: expiresAt) + signature
    }

    /// Whether the issuer with Ed25519 public key `issuer` signed this certificate as it stands.
    public func verify(issuer: [UInt8]) -> Bool {
        guard envelopeKey.count == Sodium.keyBytes, userIDHash.count == SHA256.byteCount else { return false }
        let body = Self.body(device: device, envelopeKey: envelopeKey, userIDHash: userIDHash, expiresAt: expiresAt)
        return Sodium.verify(signature, of: Self.signedMessage(body: body), publicKey: issuer)
    }

    /// Whether the certificate has expired at `now` (milliseconds since 1970).
    public func isExpired(atMillis now: Int64) -> Bool {
        now >= expiresAtMillis
    }

    /// The first invalid instant in milliseconds since 1970 (`Int64.max` when that overflows).
    package var expiresAtMillis: Int64 {
        let (limit, overflow) = expiresAt.multipliedReportingOverflow(by: 1_000)
        return overflow ? Int64.max : limit
    }

    /// The device (its short id) and the expiry: public values only.
    public var description: String { "SenderCertificate(device: \(device), expiresAt: \(expiresAt))" }
}
