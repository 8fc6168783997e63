import SyncEnvelope
import SyncKernel

/// The id of a sign-in credential: what the sign-in ledger records it as spent or revoked under,
/// and what a sibling counts its pending requests by.
///
/// Invariants: 16 bytes, BLAKE2b of the certificate's encoding keyed with a fixed domain, so two
/// credentials have the same id exactly when their certificates are the same bytes (the same
/// identity and expiry: `sign-in-cert` twice in one second with one validity writes one
/// credential twice); the id reveals nothing of the certificate; `description` is the first
/// 8 hex digits, safe to print.
public struct CredentialID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Bytes of an id.
    package static let byteCount = 16
    /// The key of the hash (a domain, not a secret).
    private static let domain = Array("synckernel.sign-in-credential-id.v1".utf8)

    /// The id's bytes.
    public let bytes: [UInt8]

    /// The id of 16 bytes read from a ledger or a notice; nil for another size.
    package init?(bytes: ArraySlice<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = Array(bytes)
    }

    /// The id of the credential whose certificate is `certificate`; nil only when libsodium is
    /// not usable.
    public init?(certificate: SignInCertificate) {
        guard let hash = Sodium.keyedHash(certificate.encoded(), key: Self.domain, count: Self.byteCount) else { return nil }
        bytes = hash
    }

    /// The full id in hex (32 digits).
    public var hex: String { Hex.encode(bytes) }

    /// Orders ids by their bytes.
    public static func < (lhs: CredentialID, rhs: CredentialID) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    /// The first 8 hex digits.
    public var description: String { String(hex.prefix(8)) }
}
