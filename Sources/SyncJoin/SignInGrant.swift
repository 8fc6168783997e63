import SyncEnvelope
import SyncKernel

/// What an approving sibling hands a new device, boxed to the requester's ephemeral key: the
/// account's secret material, the sign-in verifier, the certificate the account issued for the
/// keys the new device made, the account handle, and the certificates of the account's devices.
/// With them and its own keys the new device writes the account directory `synckernel account
/// create` and `add-device` would have given it, and only then sends its first sibling frame.
///
/// Body (after a reply's kind and request id), hand-written:
///
///     0      72   the account file (`AccountMaterial`: magic, version, account seed, issuer seed)
///     72     32   the account handle: the account's userIDHash
///     104    72   the sign-in key file (`SignInKey`: magic, version, verifier seed, identity)
///     176   169   the new device's sender certificate
///     345     1   sibling count k (1...255)
///     346     …   k times: name length m (1...64), the name, the sibling's sender certificate (169),
///                 in increasing byte order of the names, no name twice
///
/// Invariants: `encoded()` and `init?(parsing:)` are exact inverses (one encoding: the siblings
/// sorted, the handle equal to the account's userIDHash, every name a valid device name); no
/// rendering shows a secret; `isValid(for:credential:now:)` holds only for a grant whose seed
/// derives the discovery key the request was sealed to, whose certificate names the requesting
/// device's two keys and the account, verifies under the account's issuer and has not expired,
/// whose sign-in key made the certificate the requester presented, and whose siblings are other
/// devices certified by the same account under names other than the requester's.
public struct SignInGrant: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The most sibling certificates one grant carries.
    public static let maxSiblings = 255
    /// The fixed fields before the siblings.
    private static let headerBytes = AccountMaterial.fileBytes + SHA256.byteCount + SignInKey.fileBytes + SenderCertificate.byteCount + 1
    /// The longest body.
    package static let maxBytes = headerBytes + maxSiblings * (1 + 64 + SenderCertificate.byteCount)

    /// The account's seed and issuer key.
    public let account: AccountMaterial
    /// The account's sign-in verifier and identity.
    public let signInKey: SignInKey
    /// The certificate the account issued for the new device.
    public let certificate: SenderCertificate
    /// The account's other devices by name: the approving sibling and those it knows.
    public let siblings: [String: SenderCertificate]

    /// A grant of its parts; `malformedFrame` for no sibling or more than `maxSiblings`, or a
    /// name that is not a valid device name.
    public init(account: AccountMaterial, signInKey: SignInKey, certificate: SenderCertificate,
                siblings: [String: SenderCertificate]) throws(SyncKernelError) {
        guard (1...Self.maxSiblings).contains(siblings.count), siblings.keys.allSatisfy(AccountDirectory.isValidDeviceName) else {
            throw SyncKernelError(.malformedFrame, "a grant names 1 to 255 siblings by valid device names")
        }
        self.account = account
        self.signInKey = signInKey
        self.certificate = certificate
        self.siblings = siblings
    }

    /// The account handle: the account's userIDHash.
    public var accountHandle: [UInt8] { account.userIDHash }

    /// The body's bytes.
    package func encoded() -> [UInt8] {
        var bytes = account.encoded() + account.userIDHash + signInKey.encoded() + certificate.encoded()
        bytes.append(UInt8(siblings.count))
        for name in Self.sorted(siblings.keys) {
            guard let sibling = siblings[name] else { continue }
            bytes.append(UInt8(name.utf8.count))
            bytes += Array(name.utf8)
            bytes += sibling.encoded()
        }
        return bytes
    }

    /// Reads a body; nil when it is not exactly the layout (lengths, a handle that is not the
    /// account's, names out of order or invalid, a certificate or key file that does not parse).
    package init?(parsing bytes: ArraySlice<UInt8>) {
        guard bytes.count >= Self.headerBytes, bytes.count <= Self.maxBytes else { return nil }
        var at = bytes.startIndex
        func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard bytes.endIndex - at >= count else { return nil }
            defer { at += count }
            return bytes[at..<(at + count)]
        }
        guard let accountBytes = take(AccountMaterial.fileBytes),
              let account = try? AccountMaterial(decodingFile: Array(accountBytes)),
              let handle = take(SHA256.byteCount), Array(handle) == account.userIDHash,
              let signInBytes = take(SignInKey.fileBytes), let signInKey = try? SignInKey(decodingFile: Array(signInBytes)),
              let certificateBytes = take(SenderCertificate.byteCount),
              let certificate = SenderCertificate(parsing: certificateBytes),
              let count = take(1)?.first else { return nil }
        var siblings: [String: SenderCertificate] = [:]
        var previous: [UInt8]?
        for _ in 0..<Int(count) {
            guard let length = take(1)?.first, let nameBytes = take(Int(length)),
                  let siblingBytes = take(SenderCertificate.byteCount),
                  let sibling = SenderCertificate(parsing: siblingBytes) else { return nil }
            let name = Array(nameBytes)
            guard previous.map({ $0.lexicographicallyPrecedes(name) }) ?? true else { return nil }
            previous = name
            siblings[String(decoding: name, as: UTF8.self)] = sibling
        }
        guard at == bytes.endIndex, siblings.count == Int(count),
              let grant = try? SignInGrant(account: account, signInKey: signInKey, certificate: certificate, siblings: siblings) else {
            return nil
        }
        self = grant
    }

    /// Whether the grant holds together for `request`, made with `credential`, at `now`
    /// (milliseconds since 1970); see the type's invariants.
    package func isValid(for request: SignInRequest, credential: SignInCredential, now: Int64) -> Bool {
        guard let discovery = try? DiscoveryKeys(accountSeed: account.seed), discovery.publicKey == credential.discoveryKey,
              credential.certificate.verify(verifier: signInKey.verifierPublicKey),
              credential.certificate.identity == signInKey.identity,
              certificate.device == request.device, certificate.envelopeKey == request.envelopeKey,
              certificate.userIDHash == account.userIDHash, certificate.verify(issuer: account.issuerPublicKey),
              !certificate.isExpired(atMillis: now) else { return false }
        return siblings.allSatisfy { name, sibling in
            name != request.deviceName && sibling.device != request.device && sibling.userIDHash == account.userIDHash
                && sibling.verify(issuer: account.issuerPublicKey)
        }
    }

    /// `names` in increasing byte order (the encoding's order).
    private static func sorted<Names: Sequence>(_ names: Names) -> [String] where Names.Element == String {
        names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// The secrets are never shown: the number of siblings only.
    public var description: String { "SignInGrant(\(siblings.count) siblings, secrets redacted)" }

    /// The same as `description`.
    public var debugDescription: String { description }

    /// A mirror with no children, so `dump` and reflection show `description` only.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
