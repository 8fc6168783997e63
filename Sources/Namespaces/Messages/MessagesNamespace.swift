import Foundation
import SyncKernel

/// Messages: the namespace with the most rows, merged without version vectors.
///
/// Rule: `.fold(join: MessageFold.merge)`. Delivery is a monotone bit, the identity backfills
/// fill if empty, reactions are a grow-only set, and content is a fold over immutable edit and
/// delete operations ordered by a causal counter before any clock. Nothing here needs a vector.
public enum MessagesNamespace: SyncNamespace {
    public typealias Row = Message

    public static let name = "messages"
    public static let leafSchemaVersion = 1
    public static let excludedFields = [
        ExcludedField("observedAt", .perDevice, reason: "when this device first saw the message; differs per device by design"),
        ExcludedField("peerPubkey", .perDevice,
                      reason: "rewritten on receipt to this device's pinned key for the contact (canonicalPeerPubkey); devices resolve contacts at different times and nothing merges it"),
        ExcludedField("localRowID", .localIdentifier, reason: "a local row id; the messageID is the stable cross-device key"),
    ]
    public static let mergeRule: MergeRule<Message> = .fold(join: MessageFold.merge)
    public static let causalMembership: CausalMembership<Message> = .untracked

    public static func key(of row: Message) -> [UInt8] { row.messageID }

    public static func encodeLeaf(_ row: Message, into writer: inout CanonicalWriter) {
        writer.write(bytes: row.messageID)
        writer.write(encodedItem: sentContentEncoding(of: row))
        writer.write(row.senderName)
        writer.writeOptional(MessageFold.normalized(row.peerUserIDHash)) { $0.write(bytes: $1) }
        writer.write(row.isDelivered)
        encodeReactions(row.reactions, into: &writer)
        writer.writeArray(row.ops) { $0.write(encodedItem: opEncoding($1)) }
    }

    public static func encodeRow(_ row: Message, into writer: inout CanonicalWriter) {
        writer.writeArrayHeader(count: 10)
        writer.write(bytes: row.messageID)
        writer.write(encodedItem: sentContentEncoding(of: row))
        writer.write(row.senderName)
        writer.writeNullable(bytes: row.peerUserIDHash)
        writer.write(row.isDelivered)
        encodeReactions(row.reactions, into: &writer)
        writer.writeArray(row.ops) { $0.write(encodedItem: opEncoding($1)) }
        writer.writeNullable(row.observedAt)
        writer.writeNullable(bytes: row.peerPubkey)
        if let id = row.localRowID { writer.write(id) } else { writer.writeNull() }
    }

    public static func decodeRow(_ value: CBORValue) throws(SyncKernelError) -> Message {
        let fields = try value.fields(10, of: "a message")
        let sent = try fields[1].fields(6, of: "a message's sent content")
        var message = Message(messageID: try fields[0].bytes(count: 16), conversationID: try sent[0].bytes(),
                              sentAt: try sent[1].date(), isOutgoing: try sent[2].bool(), body: try sent[3].text(),
                              media: try sent[4].nullableText(), replyTo: try sent[5].nullableBytes(),
                              senderName: try fields[2].text(), peerUserIDHash: try fields[3].nullableBytes())
        message.isDelivered = try fields[4].bool()
        for item in try fields[5].array() {
            let pair = try item.fields(2, of: "a reaction")
            message.reactions.append(Reaction(reactor: try pair[0].bytes(), emoji: try pair[1].text()))
        }
        for item in try fields[6].array() { message.ops.append(try decodeOp(item)) }
        guard message.reactions == Array(Set(message.reactions)).sorted(),
              zip(message.ops, message.ops.dropFirst()).allSatisfy({ $0.opID.lexicographicallyPrecedes($1.opID) }) else {
            throw SyncKernelError(.nonCanonicalEncoding, "message sets out of order")
        }
        message.observedAt = try fields[7].nullableDate()
        message.peerPubkey = try fields[8].nullableBytes()
        message.localRowID = fields[9] == .null ? nil : try fields[9].int64()
        return message
    }

    /// The canonical encoding of the content fixed when the message was sent.
    static func sentContentEncoding(of row: Message) -> [UInt8] {
        var writer = CanonicalWriter()
        writer.writeArrayHeader(count: 6)
        writer.write(bytes: row.conversationID)
        writer.write(row.sentAt)
        writer.write(row.isOutgoing)
        writer.write(row.body)
        writer.writeNullable(row.media)
        writer.writeNullable(bytes: row.replyTo)
        return writer.bytes
    }

    /// The canonical encoding of one operation.
    static func opEncoding(_ op: MessageOp) -> [UInt8] {
        var writer = CanonicalWriter()
        writer.writeArrayHeader(count: 4)
        writer.write(bytes: op.opID)
        switch op.action {
        case .edit(let body, let media):
            writer.writeArrayHeader(count: 3)
            writer.write(UInt64(0))
            writer.write(body)
            writer.writeNullable(media)
        case .delete(let scope):
            writer.writeArrayHeader(count: 2)
            writer.write(UInt64(1))
            writer.write(UInt64(scope.rawValue))
        }
        writer.write(op.causalOrder)
        writer.write(op.editedAt)
        return writer.bytes
    }

    private static func decodeOp(_ value: CBORValue) throws(SyncKernelError) -> MessageOp {
        let fields = try value.fields(4, of: "a message op")
        let action = try fields[1].array()
        let decoded: MessageOp.Action
        switch (try action.first?.uint(), action.count) {
        case (0, 3): decoded = .edit(body: try action[1].text(), media: try action[2].nullableText())
        case (1, 2):
            guard let scope = DeleteScope(rawValue: UInt8(truncatingIfNeeded: try action[1].uint())),
                  try action[1].uint() <= 2 else { throw SyncKernelError(.malformedFrame, "delete scope") }
            decoded = .delete(scope)
        default: throw SyncKernelError(.malformedFrame, "a message op")
        }
        return MessageOp(opID: try fields[0].bytes(count: 16), action: decoded, causalOrder: try fields[2].uint(),
                         editedAt: try fields[3].date())
    }

    private static func encodeReactions(_ reactions: [Reaction], into writer: inout CanonicalWriter) {
        writer.writeArray(reactions) { writer, reaction in
            writer.writeArrayHeader(count: 2)
            writer.write(bytes: reaction.reactor)
            writer.write(reaction.emoji)
        }
    }

    /// Keeps this device's own observedAt, peerPubkey and local row id on adoption.
    public static func adopt(_ incoming: Message, over local: Message?) -> Message {
        guard let local else {
            var fresh = incoming
            fresh.localRowID = nil
            return fresh
        }
        var kept = incoming
        kept.observedAt = local.observedAt
        kept.peerPubkey = local.peerPubkey
        kept.localRowID = local.localRowID
        return kept
    }
}
