import Foundation

/// One row of the contacts namespace: a contact or a relationship state.
public enum ContactRecord: Sendable, Hashable {
    /// A contact's identity.
    case contact(Contact)
    /// A relationship state.
    case relationship(RelationshipState)
}
