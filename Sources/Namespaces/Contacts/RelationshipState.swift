import Foundation

/// Where the account stands with a contact, kept in a row (and clock) of its own.
///
/// Invariant: keyed by the contact's pubkey under its own key prefix, so a contact-only edit and
/// a relationship change never share a version vector.
public struct RelationshipState: Sendable, Hashable {
    /// The relationship's stages.
    public enum Stage: UInt8, Sendable, Hashable, CaseIterable {
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
