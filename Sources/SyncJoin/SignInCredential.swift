import SyncEnvelope
import SyncKernel

/// What a device asking to join holds: a sign-in certificate and the account's discovery public
/// key, which its request is sealed to and which names the subject the siblings listen on. It is
/// the file `synckernel account sign-in-cert --out FILE` writes and `--join FILE` reads.
///
/// The file is hand-written, 145 bytes:
///
///     0     8   magic `SKSICR`, a zero byte, version 1
///     8   105   the sign-in certificate
///   113    32   the account's discovery X25519 public key
///
/// Invariants: the discovery key is 32 bytes and names a subject; the file is written with mode
/// 0600, whole or not at all, never over an existing file, and read only with no permission bit
/// beyond 0600 (it is a bearer credential until it expires or is used: whoever holds it can ask
/// to join and raise an approval prompt, though only a sibling's approval admits anyone, and
/// once one device was admitted with it every member that learned so refuses it); `description`
/// shows the expiry only.
public struct SignInCredential: Sendable, Hashable, CustomStringConvertible {
    /// The magic and version that open a credential file.
    private static let magic = Array("SKSICR".utf8) + [0, 1]
    /// Length of a credential file.
    public static let fileBytes = magic.count + SignInCertificate.byteCount + Sodium.keyBytes

    /// The certificate that proves control of the account's sign-in identity.
    public let certificate: SignInCertificate
    /// The account's discovery public key.
    public let discoveryKey: [UInt8]
    /// The subject the account's siblings listen on for sign-in requests.
    public let discoverySubject: JoinSubject

    /// A credential of `certificate` for the account with discovery public key `discoveryKey`;
    /// `invalidDeviceIdentity` for a key that is not 32 bytes.
    public init(certificate: SignInCertificate, discoveryKey: [UInt8]) throws(SyncKernelError) {
        guard let subject = JoinSubject.discovery(publicKey: discoveryKey) else {
            throw SyncKernelError(.invalidDeviceIdentity, "a discovery key is 32 bytes")
        }
        self.certificate = certificate
        self.discoveryKey = discoveryKey
        discoverySubject = subject
    }

    /// The credential's id (what the sign-in ledger names it by); nil only when libsodium is not
    /// usable.
    public var id: CredentialID? { CredentialID(certificate: certificate) }

    /// The file's bytes.
    public func encoded() -> [UInt8] {
        Self.magic + certificate.encoded() + discoveryKey
    }

    /// Reads a credential file's bytes; `malformedKeyFile` when they are not one.
    public init(decodingFile bytes: [UInt8]) throws(SyncKernelError) {
        let start = Self.magic.count
        guard bytes.count == Self.fileBytes, bytes.starts(with: Self.magic),
              let certificate = SignInCertificate(parsing: bytes[start..<(start + SignInCertificate.byteCount)]) else {
            throw SyncKernelError(.malformedKeyFile, "not a sign-in credential file")
        }
        try self.init(certificate: certificate, discoveryKey: Array(bytes[(start + SignInCertificate.byteCount)...]))
    }

    /// Reads the credential file at `path` (owner-only: `keyFileExposed` otherwise, with nothing
    /// read; `keyFileUnavailable` when missing; `malformedKeyFile` when not a credential).
    public static func read(from path: String) throws(SyncKernelError) -> SignInCredential {
        try SignInCredential(decodingFile: KeyFile.read(path))
    }

    /// Writes the credential to a new file at `path`, mode 0600 (`keyFileUnavailable` when it
    /// exists or cannot be written).
    public func write(to path: String) throws(SyncKernelError) {
        try KeyFile.create(encoded(), at: path)
    }

    /// The expiry only.
    public var description: String { "SignInCredential(expiresAt: \(certificate.expiresAt))" }
}
