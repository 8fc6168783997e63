import Foundation
import SyncKernel

/// Messages: the namespace with the most rows, merged without version vectors.
///
/// Rule: `.join(normalize: MessageFold.normalized)`. Every hashed field only grows: delivery is a
/// bit that goes from false to true (`.or`), reactions are a grow-only set, the content fixed at
/// sending (its author among it) never differs (`.greaterEncoding` settles a copy that does), and
/// edits and deletes are immutable operations unioned by op id, ordered by a causal counter and
/// then the op id, never by a clock. A delete purges the plaintext. Nothing here needs a vector.
///
/// Author-only: an edit or a delete for everyone stands only when its author is the message's
/// (`MessageFold.isAuthorized`), which is what confines the one race left in messages to the
/// author's own devices. The local mutators refuse anyone else (`notTheAuthor`); a merge drops such
/// an operation from a shipped copy and counts it (`ApplyOutcome.refusedOperations`,
/// `ReplicaEvent.operationsRefused`).
///
/// Identity backfills (`senderName`, `peerUserIDHash`) fill if empty and a held value is never
/// overwritten by a local backfill; but when two devices hold two different values, the merge
/// must still settle them the same way on every device or the leaf never converges (a storm), so
/// the greater value wins there. That is a settlement by rule, not by the data, and two devices
/// disagreeing on who sent a message is a security-relevant fact: every such merge is reported
/// (`ApplyOutcome.backfillConflicts`, `ReplicaEvent.backfillConflict`).
///
/// Every decoded message (a shipped one, a stored one, a local save read back) is validated: its
/// sets sorted, and every op's causal counter at most `MessageOp.maxCausalOrder`
/// (`counterOutOfRange` otherwise), so a peer cannot store a counter the next edit cannot pass.
/// Row format 1 (before authors) is read by a migration: its messages and operations get an empty
/// (unknown) author.
public enum MessagesNamespace: SyncNamespace {
    public static let name = "messages"

    public static let schema = declaration(sent: [.member("author", \.author, .bytes())], ops: MessageOp.codec)

    /// Row format 1, before messages and operations named their author, kept to read stores
    /// written then (`migrations`).
    public static let schemaV1 = declaration(sent: [], ops: MessageOp.codecV1)

    public static let mergeRule = MergeRule<Message>.join(normalize: MessageFold.normalized)

    /// Reads row format 1 (`schemaV1`): messages and operations stored before authors get an
    /// empty (unknown) author.
    public static let migrations = [RowMigration(from: schemaV1)]

    /// The refused operations a message holds (`MessageFold.refusedOperations`).
    public static func refusedOperations(in row: Message) -> Int {
        MessageFold.refusedOperations(in: row)
    }

    /// The declaration, with `sent` appended to the content fixed at sending and operations
    /// written with `ops` (what changed between row formats 1 and 2).
    private static func declaration(sent extra: [Field<Message>], ops: FieldCodec<MessageOp>) -> RowSchema<Message> {
        RowSchema<Message>(
            blank: Message(messageID: [], conversationID: [], sentAt: .distantPast, isOutgoing: false, body: ""), key: \.messageID,
            validate: { message throws(SyncKernelError) in
                guard message.reactions == Array(Set(message.reactions)).sorted(),
                      zip(message.ops, message.ops.dropFirst()).allSatisfy({ $0.opID.lexicographicallyPrecedes($1.opID) }) else {
                    throw SyncKernelError(.nonCanonicalEncoding, "message sets out of order")
                }
                guard message.ops.allSatisfy({ $0.causalOrder <= MessageOp.maxCausalOrder }) else {
                    throw SyncKernelError(.counterOutOfRange, "messages: an op's causal order above MessageOp.maxCausalOrder")
                }
            }, [
                .hashed("messageID", \.messageID, .bytes(count: 16)),
                .group("sent", [
                    .member("conversationID", \.conversationID, .bytes()),
                    .member("sentAt", \.sentAt, .date),
                    .member("isOutgoing", \.isOutgoing, .bool),
                    .member("body", \.body, .text),
                    .member("media", \.media, .optional(.text)),
                    .member("replyTo", \.replyTo, .optional(.bytes())),
                ] + extra, merge: .greaterEncoding),
                .hashed("senderName", \.senderName, .text, merge: .fillIfEmpty),
                .hashed("peerUserIDHash", \.peerUserIDHash, .optional(.bytes(), emptyIsAbsent: true), merge: .fillIfEmpty),
                .hashed("isDelivered", \.isDelivered, .bool, merge: .or),
                .hashed("reactions", \.reactions, .array(Reaction.codec), merge: .sortedUnion()),
                .hashed("ops", \.ops, .array(ops), merge: .custom("opUnion", MessageFold.unionOps)),
                .excluded("observedAt", \.observedAt, .optional(.date), .perDevice,
                          reason: "when this device first saw the message; differs per device by design"),
                .excluded("peerPubkey", \.peerPubkey, .optional(.bytes()), .perDevice,
                          reason: "rewritten on receipt to this device's pinned key for the contact (canonicalPeerPubkey); devices resolve contacts at different times and nothing merges it"),
                .excluded("localRowID", \.localRowID, .optional(.int64), .localIdentifier,
                          reason: "a local row id; the messageID is the stable cross-device key"),
            ])
    }
}
