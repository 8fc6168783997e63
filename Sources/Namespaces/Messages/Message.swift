import Foundation

/// One message: immutable content as sent, plus an append-only set of edit and delete operations.
///
/// Invariants: the fields set when the message was sent never change, its author among them;
/// edits and deletes are immutable `MessageOp`s added to `ops`, and only those the author may
/// make stand (`MessageFold.isAuthorized`); what a reader sees is `MessageFold.effective(self)`.
/// `observedAt`, `peerPubkey` and `localRowID` describe this device and are never hashed.
public struct Message: Sendable, Hashable {
    /// The stable cross-device key: 16 bytes minted by the sender.
    public var messageID: [UInt8]
    /// The conversation it belongs to.
    public var conversationID: [UInt8]
    /// When the sender sent it (its clock; information only).
    public var sentAt: Date
    /// Whether this account sent it.
    public var isOutgoing: Bool
    /// The body as sent (purged when the message is deleted).
    public var body: String
    /// Media as JSON, as sent (purged when the message is deleted).
    public var media: String?
    /// The message this one replies to.
    public var replyTo: [UInt8]?
    /// The account fingerprint of the account that sent it (this account's for an outgoing
    /// message, the certificate-verified sender's for an incoming one); empty when unknown (a
    /// message stored before authors were recorded), and then nobody may edit it.
    public var author: [UInt8]
    /// Reactions, a grow-only set kept sorted.
    public var reactions: [Reaction]
    /// The sender's display name: an identity backfill, filled when empty and never overwritten.
    public var senderName: String
    /// The sender's account fingerprint: an identity backfill; empty and absent are the same.
    public var peerUserIDHash: [UInt8]?
    /// Whether delivery was confirmed: only ever goes from false to true.
    public var isDelivered: Bool
    /// Edit and delete operations, sorted by op id.
    public var ops: [MessageOp]
    /// When this device first saw the message (per device).
    public var observedAt: Date?
    /// The sender's key as this device currently resolves it (per device).
    public var peerPubkey: [UInt8]?
    /// This device's local row id (per device).
    public var localRowID: Int64?

    /// Creates a message as sent by the account `author`, with no operations.
    public init(messageID: [UInt8], conversationID: [UInt8], sentAt: Date, isOutgoing: Bool, body: String,
                media: String? = nil, replyTo: [UInt8]? = nil, senderName: String = "", peerUserIDHash: [UInt8]? = nil,
                author: [UInt8] = []) {
        self.messageID = messageID
        self.conversationID = conversationID
        self.sentAt = sentAt
        self.isOutgoing = isOutgoing
        self.body = body
        self.media = media
        self.replyTo = replyTo
        self.author = author
        reactions = []
        self.senderName = senderName
        self.peerUserIDHash = peerUserIDHash
        isDelivered = false
        ops = []
        observedAt = nil
        peerPubkey = nil
        localRowID = nil
    }
}
