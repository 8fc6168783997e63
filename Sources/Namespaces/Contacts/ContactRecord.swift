import Foundation

/// One row of the contacts namespace: a contact or a relationship state.
public enum ContactRecord: Sendable, Hashable {
    /// A contact's identity.
    case contact(Contact)
    /// A relationship state.
    case relationship(RelationshipState)

    /// The record's change stamp (the contact's or the relationship's `updatedAt`), which
    /// RowClock watches for inequality.
    public var updatedAt: Date {
        get {
            switch self {
            case .contact(let contact): contact.updatedAt
            case .relationship(let state): state.updatedAt
            }
        }
        set {
            switch self {
            case .contact(var contact):
                contact.updatedAt = newValue
                self = .contact(contact)
            case .relationship(var state):
                state.updatedAt = newValue
                self = .relationship(state)
            }
        }
    }
}
