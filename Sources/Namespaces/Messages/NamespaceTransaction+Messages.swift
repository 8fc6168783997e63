import Foundation
import SyncKernel

/// Message mutators: each adds information through the same fold siblings use, never overwrites,
/// and an edit or a delete for everyone is the author's alone.
extension NamespaceTransaction where N == MessagesNamespace {
    /// Records a message received or sent on this device (joined with any copy already held,
    /// through the same fold siblings use: operations the rules refuse are dropped).
    public func record(_ message: Message) throws(SyncKernelError) {
        guard let held = try row(forKey: message.messageID) else {
            try save(MessageFold.normalized(message))
            return
        }
        try save(MessagesNamespace.adopt(MessageFold.merge(held, message), over: held))
    }

    /// Edits a message as the account `author` (its fingerprint): the new operation orders after
    /// every operation this device holds. Throws `notTheAuthor`, writing nothing, unless `author`
    /// is the message's author, and `counterOutOfRange` when the message's causal counter is at
    /// its bound (`MessageFold.nextCausalOrder(after:)`).
    public func edit(_ messageID: [UInt8], body: String, media: String? = nil, opID: [UInt8], editedAt: Date,
                     as author: [UInt8]) throws(SyncKernelError) {
        try append(to: messageID) { (held) throws(SyncKernelError) in
            MessageOp(opID: opID, action: .edit(body: body, media: media),
                      causalOrder: try MessageFold.nextCausalOrder(after: held), editedAt: editedAt, author: author)
        }
    }

    /// Deletes a message for `scope` as the account `author`; the plaintext is purged. A delete
    /// for `.everyone` is the author's alone (`notTheAuthor` otherwise, writing nothing); a delete
    /// for `.me` hides it from this account whoever sent it. Throws `counterOutOfRange`, writing
    /// nothing, when the message's causal counter is at its bound.
    public func delete(_ messageID: [UInt8], scope: DeleteScope, opID: [UInt8], at date: Date,
                       as author: [UInt8]) throws(SyncKernelError) {
        try append(to: messageID) { (held) throws(SyncKernelError) in
            MessageOp(opID: opID, action: .delete(scope), causalOrder: try MessageFold.nextCausalOrder(after: held), editedAt: date,
                      author: author)
        }
    }

    /// Marks a message delivered (false to true only).
    public func markDelivered(_ messageID: [UInt8]) throws(SyncKernelError) {
        guard var held = try row(forKey: messageID), !held.isDelivered else { return }
        held.isDelivered = true
        try save(held)
    }

    /// Fills the sender's identity where it is still empty; held values are never overwritten.
    public func backfillIdentity(_ messageID: [UInt8], peerUserIDHash: [UInt8]?, senderName: String) throws(SyncKernelError) {
        guard var held = try row(forKey: messageID) else { return }
        if MessageFold.normalized(held.peerUserIDHash) == nil { held.peerUserIDHash = MessageFold.normalized(peerUserIDHash) }
        if held.senderName.isEmpty { held.senderName = senderName }
        try save(held)
    }

    /// Rewrites the message's peerPubkey to this device's pinned key for the sender
    /// (canonicalPeerPubkey). The field is excluded from the leaf, so the digest does not move.
    public func canonicalizePeerPubkey(_ messageID: [UInt8], pinned: [UInt8]) throws(SyncKernelError) {
        guard var held = try row(forKey: messageID), held.peerPubkey != pinned else { return }
        held.peerPubkey = pinned
        try save(held)
    }

    /// Appends the operation `makeOp` makes to the held message; refuses one the message's author
    /// did not make (`notTheAuthor`), or an empty author (an account always has a fingerprint).
    private func append(to messageID: [UInt8], _ makeOp: (Message) throws(SyncKernelError) -> MessageOp) throws(SyncKernelError) {
        guard var held = try row(forKey: messageID) else { throw SyncKernelError(.namespaceRefused, "no such message") }
        let op = try makeOp(held)
        guard !op.author.isEmpty, MessageFold.isAuthorized(op, in: held) else {
            throw SyncKernelError(.notTheAuthor, "messages: only the author may edit a message or delete it for everyone")
        }
        held.ops.append(op)
        held.ops.sort { $0.opID.lexicographicallyPrecedes($1.opID) }
        try save(MessageFold.purged(held))
    }
}
