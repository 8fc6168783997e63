import Foundation

/// A contact's identity as this account has pinned it.
///
/// Invariant: keyed by `pubkey`; `systemContactIdentifier` is this device's address-book link and
/// never leaves the device's own judgement (excluded from the leaf, kept on adoption).
public struct Contact: Sendable, Hashable {
    /// The contact's public key (32 bytes), the stable cross-device key.
    public var pubkey: [UInt8]
    /// The contact's account fingerprint.
    public var userIDHash: [UInt8]
    /// The key that signs the contact's account statements.
    public var accountSigningPubkey: [UInt8]
    /// The channel key used to reach the contact.
    public var channelKey: [UInt8]
    /// The display name.
    public var name: String
    /// Change stamp on the editing device's clock (RowClock reads it for inequality only).
    public var updatedAt: Date
    /// The local address-book identifier, per device.
    public var systemContactIdentifier: String?

    /// Creates a contact.
    public init(pubkey: [UInt8], userIDHash: [UInt8], accountSigningPubkey: [UInt8], channelKey: [UInt8],
                name: String, updatedAt: Date, systemContactIdentifier: String? = nil) {
        self.pubkey = pubkey
        self.userIDHash = userIDHash
        self.accountSigningPubkey = accountSigningPubkey
        self.channelKey = channelKey
        self.name = name
        self.updatedAt = updatedAt
        self.systemContactIdentifier = systemContactIdentifier
    }
}
