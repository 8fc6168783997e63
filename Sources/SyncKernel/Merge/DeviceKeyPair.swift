import CSodium

/// An Ed25519 signing key pair whose public key names a device.
///
/// Invariants: the same 32-byte seed always yields the same pair (libsodium's
/// `crypto_sign_seed_keypair`), so simulations and tests can mint stable identities; no
/// rendering of the pair (`description`, `debugDescription`, `dump`, a mirror) shows the secret
/// key: only the first bytes of the public key.
public struct DeviceKeyPair: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The public key, which is the device's `DeviceID`.
    public let publicKey: [UInt8]
    /// The secret key (64 bytes, libsodium layout).
    public let secretKey: [UInt8]

    /// Derives a key pair from a 32-byte seed.
    public init(seed: [UInt8]) throws(SyncKernelError) {
        guard seed.count == Int(crypto_sign_SEEDBYTES), SHA256.ready else {
            throw SyncKernelError(.invalidDeviceIdentity, "a key seed is 32 bytes")
        }
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        var secretKey = [UInt8](repeating: 0, count: Int(crypto_sign_SECRETKEYBYTES))
        guard crypto_sign_seed_keypair(&publicKey, &secretKey, seed) == 0 else {
            throw SyncKernelError(.invalidDeviceIdentity, "key derivation failed")
        }
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// The device identity this key pair names.
    public var deviceID: DeviceID {
        get throws(SyncKernelError) { try DeviceID(publicKey: publicKey) }
    }

    /// The first four bytes of the public key, never the secret key.
    public var description: String { "DeviceKeyPair(\(Hex.short(publicKey)), secret redacted)" }

    /// The same as `description`.
    public var debugDescription: String { description }

    /// A mirror with no children, so `dump` and reflection show `description` only.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
