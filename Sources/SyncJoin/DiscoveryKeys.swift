import SyncEnvelope
import SyncKernel

/// The account's discovery key pair: X25519, derived from the account seed, so every sibling
/// holds it and a new device, given only the public key (in its `SignInCredential`), can seal a
/// sign-in request that any of them opens.
///
/// Invariants: the secret key is the 32-byte subkey of the account seed under the context
/// `SKdscvry` (subkey 1 of libsodium's KDF, beside the channel keys' own contexts, so it reveals
/// neither the seed nor them); the public key is derived from it; the discovery subject is
/// derived from the public key (`JoinSubject.discovery`); no rendering shows the secret.
package struct DiscoveryKeys: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The X25519 public key, which requests are sealed to.
    package let publicKey: [UInt8]
    /// The X25519 secret key, which opens requests and boxes replies.
    package let secretKey: [UInt8]
    /// The subject the siblings listen on.
    package let subject: JoinSubject

    /// The discovery keys of a 32-byte account seed; `invalidDeviceIdentity` for another size.
    package init(accountSeed: [UInt8]) throws(SyncKernelError) {
        guard let secretKey = Sodium.deriveKey(from: accountSeed, id: 1, context: "SKdscvry"),
              let publicKey = Sodium.envelopePublicKey(secretKey: secretKey),
              let subject = JoinSubject.discovery(publicKey: publicKey) else {
            throw SyncKernelError(.invalidDeviceIdentity, "an account seed is 32 bytes")
        }
        self.publicKey = publicKey
        self.secretKey = secretKey
        self.subject = subject
    }

    /// Never shows the secret key.
    package var description: String { "DiscoveryKeys(secret redacted)" }

    /// The same as `description`.
    package var debugDescription: String { description }

    /// A mirror with no children.
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
