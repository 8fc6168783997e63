import SyncKernel

/// The keys every sibling derives from the account seed with libsodium's KDF
/// (`crypto_kdf_derive_from_key`): the sibling channel key, which MACs every envelope's inside,
/// and the inbox key, which turns a device id into the relay subject of its inbox.
///
/// Invariants: both are 32-byte subkeys of the seed under their own 8-byte contexts
/// (`SKsiblng`, subkey 1; `SKinbox_`, subkey 1), so neither reveals the seed or the other; a
/// device without the seed has neither (and seals or opens nothing); no rendering shows them.
package struct ChannelKeys: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The sibling channel key (HMAC-SHA-512-256, `crypto_auth`).
    package let mac: [UInt8]
    /// The key of the keyed hash that names a device's inbox subject.
    package let inbox: [UInt8]

    /// Derives both keys from a 32-byte account seed; `invalidDeviceIdentity` for another size.
    package init(accountSeed: [UInt8]) throws(SyncKernelError) {
        guard let mac = Sodium.deriveKey(from: accountSeed, id: 1, context: "SKsiblng"),
              let inbox = Sodium.deriveKey(from: accountSeed, id: 1, context: "SKinbox_") else {
            throw SyncKernelError(.invalidDeviceIdentity, "an account seed is 32 bytes")
        }
        self.mac = mac
        self.inbox = inbox
    }

    /// Never shows the keys.
    package var description: String { "ChannelKeys(redacted)" }

    /// The same as `description`.
    package var debugDescription: String { description }

    /// A mirror with no children.
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
