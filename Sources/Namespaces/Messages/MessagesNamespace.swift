import Foundation
import SyncKernel

/// Messages: the namespace with the most rows, merged without version vectors.
///
/// Rule: `.join(normalize: MessageFold.purged)`. Every hashed field only grows: delivery is a bit
/// that goes from false to true (`.or`), the identity backfills fill if empty, reactions are a
/// grow-only set, the content fixed at sending never differs (`.greaterEncoding` settles a copy
/// that does), and edits and deletes are immutable operations unioned by op id, ordered by a causal
/// counter and then the op id, never by a clock. A delete purges the plaintext. Nothing here needs
/// a vector. Every decoded message (a shipped one, a stored one, a local save read back) is
/// validated: its sets sorted, and every op's causal counter at most `MessageOp.maxCausalOrder`
/// (`counterOutOfRange` otherwise), so a peer cannot store a counter the next edit cannot pass.
public enum MessagesNamespace: SyncNamespace {
    public static let name = "messages"

    public static let schema = RowSchema<Message>(
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
            ], merge: .greaterEncoding),
            .hashed("senderName", \.senderName, .text, merge: .fillIfEmpty),
            .hashed("peerUserIDHash", \.peerUserIDHash, .optional(.bytes(), emptyIsAbsent: true), merge: .fillIfEmpty),
            .hashed("isDelivered", \.isDelivered, .bool, merge: .or),
            .hashed("reactions", \.reactions, .array(Reaction.codec), merge: .sortedUnion()),
            .hashed("ops", \.ops, .array(MessageOp.codec), merge: .custom("opUnion", MessageFold.unionOps)),
            .excluded("observedAt", \.observedAt, .optional(.date), .perDevice,
                      reason: "when this device first saw the message; differs per device by design"),
            .excluded("peerPubkey", \.peerPubkey, .optional(.bytes()), .perDevice,
                      reason: "rewritten on receipt to this device's pinned key for the contact (canonicalPeerPubkey); devices resolve contacts at different times and nothing merges it"),
            .excluded("localRowID", \.localRowID, .optional(.int64), .localIdentifier,
                      reason: "a local row id; the messageID is the stable cross-device key"),
        ])

    public static let mergeRule = MergeRule<Message>.join(normalize: MessageFold.purged)
}
