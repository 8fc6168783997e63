import Foundation
import SyncKernel

/// Contacts: identities and relationship states, each row with its own clock.
///
/// Rule: `.causal`. Both are edited on any device. The spec folded a contact and its
/// relationship into one clock and needed a guard against a contact-only edit carrying a stale
/// relationship; here they are separate rows (keys `0x01 ‖ pubkey` and `0x02 ‖ pubkey`), so each
/// merges on its own history and no guard is needed.
public enum ContactsNamespace: SyncNamespace {
    public static let name = "contacts"

    public static let schema = RowSchema<ContactRecord>.variants(derivedKey: "tag || pubkey", key(of:), [
        .variant("Contact", tag: 1, blank: Contact(pubkey: [], userIDHash: [], accountSigningPubkey: [], channelKey: [], name: "",
                                                   updatedAt: .distantPast),
                 embed: ContactRecord.contact, extract: { if case .contact(let contact) = $0 { contact } else { nil } }, [
                     .hashed("pubkey", \.pubkey, .bytes(count: 32)),
                     .hashed("userIDHash", \.userIDHash, .bytes()),
                     .hashed("accountSigningPubkey", \.accountSigningPubkey, .bytes()),
                     .hashed("channelKey", \.channelKey, .bytes()),
                     .hashed("name", \.name, .text),
                     .hashed("updatedAt", \.updatedAt, .date),
                     .excluded("systemContactIdentifier", \.systemContactIdentifier, .optional(.text), .perDevice,
                               reason: "each device links its own address book; the identifiers differ per device and nothing merges them"),
                 ]),
        .variant("RelationshipState", tag: 2, blank: RelationshipState(pubkey: [], stage: .none, updatedAt: .distantPast),
                 embed: ContactRecord.relationship, extract: { if case .relationship(let state) = $0 { state } else { nil } }, [
                     .hashed("pubkey", \.pubkey, .bytes(count: 32)),
                     .hashed("stage", \.stage, .enumeration()),
                     .hashed("updatedAt", \.updatedAt, .date),
                 ]),
    ])

    public static let mergeRule = MergeRule<ContactRecord>.causal(changeStamp: \.updatedAt)

    /// The key of `pubkey`'s contact row.
    public static func contactKey(_ pubkey: [UInt8]) -> [UInt8] { [0x01] + pubkey }
    /// The key of `pubkey`'s relationship row.
    public static func relationshipKey(_ pubkey: [UInt8]) -> [UInt8] { [0x02] + pubkey }

    private static func key(of row: ContactRecord) -> [UInt8] {
        switch row {
        case .contact(let contact): contactKey(contact.pubkey)
        case .relationship(let state): relationshipKey(state.pubkey)
        }
    }
}
