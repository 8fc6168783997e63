import Foundation
import SyncKernel

/// Contacts: identities and relationship states, each row with its own clock.
///
/// Rule: `.causal`. Both are edited on any device. The spec folded a contact and its
/// relationship into one clock and needed a guard against a contact-only edit carrying a stale
/// relationship; here they are separate rows (keys `0x01 ‖ pubkey` and `0x02 ‖ pubkey`), so each
/// merges on its own history and no guard is needed.
public enum ContactsNamespace: SyncNamespace {
    public typealias Row = ContactRecord

    public static let name = "contacts"
    public static let leafSchemaVersion = 1
    public static let excludedFields = [
        ExcludedField("Contact.systemContactIdentifier", .perDevice,
                      reason: "each device links its own address book; the identifiers differ per device and nothing merges them"),
    ]
    public static let mergeRule: MergeRule<ContactRecord> = .causal
    public static let causalMembership: CausalMembership<ContactRecord> = .tracked { record in
        switch record {
        case .contact(let contact): CanonicalWriter.wholeSeconds(contact.updatedAt)
        case .relationship(let state): CanonicalWriter.wholeSeconds(state.updatedAt)
        }
    }

    /// The key of `pubkey`'s contact row.
    public static func contactKey(_ pubkey: [UInt8]) -> [UInt8] { [0x01] + pubkey }
    /// The key of `pubkey`'s relationship row.
    public static func relationshipKey(_ pubkey: [UInt8]) -> [UInt8] { [0x02] + pubkey }

    public static func key(of row: ContactRecord) -> [UInt8] {
        switch row {
        case .contact(let contact): contactKey(contact.pubkey)
        case .relationship(let state): relationshipKey(state.pubkey)
        }
    }

    public static func encodeLeaf(_ row: ContactRecord, into writer: inout CanonicalWriter) {
        writeSyncedFields(row, into: &writer)
    }

    public static func encodeRow(_ row: ContactRecord, into writer: inout CanonicalWriter) {
        switch row {
        case .contact(let contact):
            writer.writeArrayHeader(count: 8)
            writeSyncedFields(row, into: &writer)
            writer.writeNullable(contact.systemContactIdentifier)
        case .relationship:
            writer.writeArrayHeader(count: 4)
            writeSyncedFields(row, into: &writer)
        }
    }

    /// The fields every device shares, in order: the whole leaf, and the row without its local link.
    private static func writeSyncedFields(_ row: ContactRecord, into writer: inout CanonicalWriter) {
        switch row {
        case .contact(let contact):
            writer.write(UInt64(1))
            writer.write(bytes: contact.pubkey)
            writer.write(bytes: contact.userIDHash)
            writer.write(bytes: contact.accountSigningPubkey)
            writer.write(bytes: contact.channelKey)
            writer.write(contact.name)
            writer.write(contact.updatedAt)
        case .relationship(let state):
            writer.write(UInt64(2))
            writer.write(bytes: state.pubkey)
            writer.write(UInt64(state.stage.rawValue))
            writer.write(state.updatedAt)
        }
    }

    public static func decodeRow(_ value: CBORValue) throws(SyncKernelError) -> ContactRecord {
        let fields = try value.array()
        switch (try fields.first?.uint(), fields.count) {
        case (1, 8):
            return .contact(Contact(pubkey: try fields[1].bytes(count: 32), userIDHash: try fields[2].bytes(),
                                    accountSigningPubkey: try fields[3].bytes(), channelKey: try fields[4].bytes(),
                                    name: try fields[5].text(), updatedAt: try fields[6].date(),
                                    systemContactIdentifier: try fields[7].nullableText()))
        case (2, 4):
            guard let stage = RelationshipState.Stage(rawValue: UInt8(truncatingIfNeeded: try fields[2].uint())),
                  try fields[2].uint() <= 3 else {
                throw SyncKernelError(.malformedFrame, "relationship stage")
            }
            return .relationship(RelationshipState(pubkey: try fields[1].bytes(count: 32), stage: stage,
                                                   updatedAt: try fields[3].date()))
        default:
            throw SyncKernelError(.malformedFrame, "a contact record")
        }
    }

    /// Keeps this device's address-book link when a sibling's version of the contact wins.
    public static func adopt(_ incoming: ContactRecord, over local: ContactRecord?) -> ContactRecord {
        guard case .contact(var contact) = incoming, case .contact(let mine)? = local else { return incoming }
        contact.systemContactIdentifier = mine.systemContactIdentifier
        return .contact(contact)
    }
}
