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

/// Where the account stands with a contact, kept in a row (and clock) of its own.
///
/// Invariant: keyed by the contact's pubkey under its own key prefix, so a contact-only edit and
/// a relationship change never share a version vector.
public struct RelationshipState: Sendable, Hashable {
    /// The relationship's stages.
    public enum Stage: UInt8, Sendable, Hashable {
        /// No relationship.
        case none = 0
        /// An invitation is outstanding.
        case invited = 1
        /// Connected.
        case connected = 2
        /// Blocked.
        case blocked = 3
    }

    /// The contact's public key.
    public var pubkey: [UInt8]
    /// The stage.
    public var stage: Stage
    /// Change stamp on the editing device's clock.
    public var updatedAt: Date

    /// Creates a relationship state.
    public init(pubkey: [UInt8], stage: Stage, updatedAt: Date) {
        self.pubkey = pubkey
        self.stage = stage
        self.updatedAt = updatedAt
    }
}

/// One row of the contacts namespace: a contact or a relationship state.
public enum ContactRecord: Sendable, Hashable {
    /// A contact's identity.
    case contact(Contact)
    /// A relationship state.
    case relationship(RelationshipState)
}
