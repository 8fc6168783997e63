#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SyncKernel

/// An account directory on disk: the account's secret material and every device's keys and
/// certificate, as `synckernel account create` and `account add-device` write them.
///
///     DIR/account.key          the account seed and issuer key (`AccountMaterial`, 72 bytes)
///     DIR/devices/NAME.key     a device's signing seed and envelope secret key (`DeviceKeys`, 72 bytes)
///     DIR/devices/NAME.cert    the device's sender certificate (`SenderCertificate`, 169 bytes)
///
/// Invariants: every file is written through `KeyFile` (mode 0600, whole or not at all, never
/// overwritten) and read only with no permission bit beyond 0600; the directories are made with
/// mode 0700; a device name is 1 to 64 ASCII letters, digits, `-` or `_`, so it cannot leave the
/// directory; a device's key and certificate are written together or, when the certificate
/// cannot be, neither stays.
public struct AccountDirectory: Sendable {
    /// The directory.
    public let path: String

    /// The account directory at `path` (nothing is read or written yet).
    public init(path: String) {
        self.path = path
    }

    /// The account file.
    public var accountFile: String { path + "/account.key" }
    /// The folder of the devices' files.
    public var devicesFolder: String { path + "/devices" }

    /// Whether `name` may name a device: 1 to 64 ASCII letters, digits, `-` or `_`.
    public static func isValidDeviceName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"): true
            default: false
            }
        }
    }

    /// Creates a new account in the directory (made if missing); `keyFileUnavailable` when it
    /// already holds one.
    @discardableResult
    public func create(entropy: EntropySource = .system) throws(SyncKernelError) -> AccountMaterial {
        try KeyFile.makeDirectory(path)
        let account = try AccountMaterial.generate(entropy: entropy)
        try KeyFile.create(account.encoded(), at: accountFile)
        return account
    }

    /// The account's material.
    public func account() throws(SyncKernelError) -> AccountMaterial {
        try AccountMaterial(decodingFile: KeyFile.read(accountFile))
    }

    /// Adds a device named `name`: new keys, and a certificate issued by the account until
    /// `expiresAt` (seconds since 1970); returns the certificate (its `device` is the device id).
    /// `keyFileUnavailable` for a name in use or not valid.
    @discardableResult
    public func addDevice(name: String, expiresAt: Int64,
                          entropy: EntropySource = .system) throws(SyncKernelError) -> SenderCertificate {
        let (keyFile, certificateFile) = try files(of: name)
        let account = try account()
        guard access(certificateFile, F_OK) != 0 else { throw SyncKernelError(.keyFileUnavailable, "a device of this name exists") }
        let device = try DeviceKeys.generate(entropy: entropy)
        let certificate = try account.issue(for: device, expiresAt: expiresAt)
        try KeyFile.makeDirectory(devicesFolder)
        try KeyFile.create(device.encoded(), at: keyFile)
        do {
            try KeyFile.create(certificate.encoded(), at: certificateFile)
        } catch {
            unlink(keyFile)
            throw error
        }
        return certificate
    }

    /// The names of the devices holding a certificate, sorted.
    public func deviceNames() throws(SyncKernelError) -> [String] {
        try KeyFile.names(in: devicesFolder, suffix: ".cert").filter(Self.isValidDeviceName)
    }

    /// The secret keys of device `name`.
    public func deviceKeys(name: String) throws(SyncKernelError) -> DeviceKeys {
        try DeviceKeys(decodingFile: KeyFile.read(files(of: name).key))
    }

    /// The certificate of device `name`.
    public func certificate(name: String) throws(SyncKernelError) -> SenderCertificate {
        try SenderCertificate(decoding: KeyFile.read(files(of: name).certificate))
    }

    /// What device `name` seals and opens with (`invalidCertificate` when its certificate is not
    /// its own, issued by this account).
    public func envelopeKeys(name: String) throws(SyncKernelError) -> EnvelopeKeys {
        try EnvelopeKeys(account: account(), device: deviceKeys(name: name), certificate: certificate(name: name))
    }

    /// The roster of every other device of the directory, for the device holding `keys`
    /// (`invalidCertificate` for a certificate the account did not issue).
    public func roster(for keys: EnvelopeKeys) throws(SyncKernelError) -> SiblingRoster {
        var certificates: [SenderCertificate] = []
        for name in try deviceNames() { certificates.append(try certificate(name: name)) }
        return try SiblingRoster(certificates, for: keys)
    }

    /// The key and certificate files of device `name`.
    private func files(of name: String) throws(SyncKernelError) -> (key: String, certificate: String) {
        guard Self.isValidDeviceName(name) else {
            throw SyncKernelError(.keyFileUnavailable, "a device name is 1 to 64 letters, digits, - or _")
        }
        return (devicesFolder + "/" + name + ".key", devicesFolder + "/" + name + ".cert")
    }
}
