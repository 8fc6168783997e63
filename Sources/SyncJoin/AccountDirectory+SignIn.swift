#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SyncEnvelope
import SyncKernel

/// The sign-in side of an account directory: the verifier key the account pins, the sign-in
/// credentials it writes for new devices, the ledger of credentials spent or revoked, and the
/// certificates of devices that joined.
///
///     DIR/sign-in.key         the sign-in verifier seed and identity (`SignInKey`, 72 bytes)
///     DIR/devices/NAME.cert   also for a device that joined through this one (no NAME.key here)
///     DIR/sign-in.ledger      the credentials that admit no device any more (`SignInLedger`)
///
/// Invariants: every file is written through `KeyFile` (mode 0600, whole or not at all, never
/// overwritten but for the ledger, which is replaced whole) and read only with no permission bit
/// beyond 0600; a sibling's certificate is
/// recorded only when it names this account and verifies under its issuer, under a name no
/// device of the directory has.
extension AccountDirectory {
    /// The sign-in verifier's file.
    public var signInKeyFile: String { path + "/sign-in.key" }

    /// Creates a new account in the directory together with its sign-in key (`account.key` and
    /// `sign-in.key`); when the sign-in key cannot be written the account file is removed again.
    /// `keyFileUnavailable` when the directory already holds an account.
    @discardableResult
    public func createWithSignInKey(entropy: EntropySource = .system) throws(SyncKernelError) -> AccountMaterial {
        let account = try create(entropy: entropy)
        do {
            try addSignInKey(entropy: entropy)
        } catch {
            unlink(accountFile)
            throw error
        }
        return account
    }

    /// Adds a sign-in key to the account of this directory (one made before sign-in keys
    /// existed); `keyFileUnavailable` without an account or when it already has one.
    @discardableResult
    public func addSignInKey(entropy: EntropySource = .system) throws(SyncKernelError) -> SignInKey {
        _ = try account()
        let key = try SignInKey.generate(entropy: entropy)
        try KeyFile.create(key.encoded(), at: signInKeyFile)
        return key
    }

    /// The account's sign-in key.
    public func signInKey() throws(SyncKernelError) -> SignInKey {
        try SignInKey(decodingFile: KeyFile.read(signInKeyFile))
    }

    /// The account's sign-in key, or nil when the directory has none (a file that exists but
    /// others may read, or that is malformed, still throws: a device never runs unpinned by
    /// mistake).
    public func signInKeyIfPresent() throws(SyncKernelError) -> SignInKey? {
        guard access(signInKeyFile, F_OK) == 0 else { return nil }
        return try signInKey()
    }

    /// A new sign-in credential for a device to join this account: a certificate of the
    /// account's sign-in identity valid until `expiresAt` (seconds since 1970) and the account's
    /// discovery key.
    public func signInCredential(expiresAt: Int64) throws(SyncKernelError) -> SignInCredential {
        let account = try account()
        let certificate = try signInKey().issue(expiresAt: expiresAt)
        return try SignInCredential(certificate: certificate, discoveryKey: DiscoveryKeys(accountSeed: account.seed).publicKey)
    }

    /// The sign-in ledger's file.
    public var signInLedgerFile: String { path + "/sign-in.ledger" }

    /// The sign-in ledger (empty when the directory has none yet); `keyFileExposed` or
    /// `malformedKeyFile` for a file that is not an owner-only ledger.
    public func signInLedger() throws(SyncKernelError) -> SignInLedger {
        guard access(signInLedgerFile, F_OK) == 0 else { return SignInLedger() }
        return try SignInLedger(decodingFile: KeyFile.read(signInLedgerFile))
    }

    /// Replaces the sign-in ledger with `ledger` (whole or not at all).
    public func writeSignInLedger(_ ledger: SignInLedger) throws(SyncKernelError) {
        try KeyFile.replace(ledger.fileEncoded(), at: signInLedgerFile)
    }

    /// Marks `credential` revoked in this directory's ledger, so no device running on it admits
    /// a device with it (and every member it tells refuses it too). `invalidCertificate` when it
    /// is not a credential of this account (another verifier, identity or discovery key), has
    /// expired at `now` (milliseconds since 1970: nothing to revoke) or already admitted a device.
    public func revokeSignInCredential(_ credential: SignInCredential, now: Int64) throws(SyncKernelError) {
        let key = try signInKey()
        guard credential.certificate.verify(verifier: key.verifierPublicKey),
              Sodium.constantTimeEqual(credential.certificate.identity, key.identity),
              credential.discoveryKey == (try DiscoveryKeys(accountSeed: account().seed).publicKey),
              let id = CredentialID(certificate: credential.certificate) else {
            throw SyncKernelError(.invalidCertificate, "not a sign-in credential of this account")
        }
        guard !credential.certificate.isExpired(atMillis: now) else {
            throw SyncKernelError(.invalidCertificate, "the sign-in credential has expired already")
        }
        var ledger = try signInLedger().pruned(atMillis: now)
        guard ledger.mark(of: id) != .spent else {
            throw SyncKernelError(.invalidCertificate, "the sign-in credential admitted a device already")
        }
        ledger.record(SignInLedger.Entry(credential: id, expiresAt: credential.certificate.expiresAt, mark: .revoked))
        try writeSignInLedger(ledger)
    }

    /// The subject this account's siblings listen on for sign-in requests.
    public func discoverySubject() throws(SyncKernelError) -> JoinSubject {
        try DiscoveryKeys(accountSeed: account().seed).subject
    }

    /// The certificate of every device of the directory, by name.
    public func certificatesByName() throws(SyncKernelError) -> [String: SenderCertificate] {
        var certificates: [String: SenderCertificate] = [:]
        for name in try deviceNames() { certificates[name] = try certificate(name: name) }
        return certificates
    }

    /// Records the certificate of a device that joined through this one as `devices/NAME.cert`
    /// (no key file: its keys are its own), so this device's roster includes it.
    /// `invalidCertificate` when it is not this account's; `keyFileUnavailable` for a name in use
    /// or not valid.
    public func addSiblingCertificate(_ certificate: SenderCertificate, name: String) throws(SyncKernelError) {
        guard Self.isValidDeviceName(name) else {
            throw SyncKernelError(.keyFileUnavailable, "a device name is 1 to 64 letters, digits, - or _")
        }
        let account = try account()
        guard certificate.userIDHash == account.userIDHash, certificate.verify(issuer: account.issuerPublicKey) else {
            throw SyncKernelError(.invalidCertificate, "a sibling certificate not issued by this account")
        }
        let file = devicesFolder + "/" + name
        guard access(file + ".cert", F_OK) != 0, access(file + ".key", F_OK) != 0 else {
            throw SyncKernelError(.keyFileUnavailable, "a device of this name exists")
        }
        try KeyFile.makeDirectory(devicesFolder)
        try KeyFile.create(certificate.encoded(), at: file + ".cert")
    }
}
