import Foundation
import SyncKernel

/// The message merge: a join over immutable content, monotone flags, identity backfills and an
/// append-only operation set.
///
/// Invariants: `merge` is commutative, associative and idempotent on everything the leaf hashes
/// (per-device fields come from the local side); an operation the rules refuse (an edit or a
/// delete for everyone whose author is not the message's) is dropped by every merge and never
/// shown; a delete dominates by scope (everyone > me > live) and purges the plaintext of the
/// message and of every edit; otherwise the visible edit is the greatest by (causalOrder, opID):
/// causality orders edits, and two concurrent edits (equal counters) go to the greater op id on
/// every device. No clock takes part; `editedAt` is shown only.
public enum MessageFold {
    /// What a reader sees of a message.
    public struct Effective: Sendable, Hashable {
        /// The visible body (empty once deleted).
        public let body: String
        /// The visible media.
        public let media: String?
        /// The delete scope, when deleted.
        public let deleted: DeleteScope?
    }

    /// Joins the local copy with an incoming one: the namespace's derived join (each hashed
    /// field's merge, then `normalized`: refused operations dropped, a deleted message's
    /// plaintext purged).
    public static func merge(_ local: Message, _ incoming: Message) -> Message {
        MessagesNamespace.joined(local, incoming) ?? local
    }

    /// The union of two operation sets by op id, sorted by op id (the `ops` field's merge).
    public static func unionOps(_ local: [MessageOp], _ incoming: [MessageOp]) -> [MessageOp] {
        var ops: [[UInt8]: MessageOp] = [:]
        for op in local + incoming {
            if let held = ops[op.opID] {
                ops[op.opID] = preferred(held, op)
            } else {
                ops[op.opID] = op
            }
        }
        return ops.values.sorted { $0.opID.lexicographicallyPrecedes($1.opID) }
    }

    /// The message as a reader sees it.
    public static func effective(_ message: Message) -> Effective {
        let scope = message.ops.compactMap { op -> DeleteScope? in
            if case .delete(let scope) = op.action { return scope } else { return nil }
        }.max()
        if let scope { return Effective(body: "", media: nil, deleted: scope) }
        let latest = message.ops.filter { if case .edit = $0.action { return true } else { return false } }
            .max { editPrecedes($0, $1) }
        if let latest, case .edit(let body, let media) = latest.action {
            return Effective(body: body, media: media, deleted: nil)
        }
        return Effective(body: message.body, media: message.media, deleted: nil)
    }

    /// The order of edits: the causal counter, then (for concurrent edits) the op id. The
    /// editing device's clock is never consulted, so a device whose clock runs fast cannot win.
    public static func editPrecedes(_ lhs: MessageOp, _ rhs: MessageOp) -> Bool {
        if lhs.causalOrder != rhs.causalOrder { return lhs.causalOrder < rhs.causalOrder }
        return lhs.opID.lexicographicallyPrecedes(rhs.opID)
    }

    /// The next causal counter for an operation made on `message` now: one more than the
    /// largest it holds.
    ///
    /// Throws `counterOutOfRange` when the largest held counter is already at
    /// `MessageOp.maxCausalOrder` (never a trap): the edit or delete that needs it fails and its
    /// write rolls back.
    public static func nextCausalOrder(after message: Message) throws(SyncKernelError) -> UInt64 {
        let held = message.ops.map(\.causalOrder).max() ?? 0
        guard held < MessageOp.maxCausalOrder else {
            throw SyncKernelError(.counterOutOfRange, "messages: an op's causal order at MessageOp.maxCausalOrder")
        }
        // Cannot overflow: held < maxCausalOrder < UInt64.max.
        return held + 1
    }

    /// Whether `op` may stand in `message`: a delete for this account only hides the message from
    /// the account that holds it, so any holder may make one; an edit or a delete for everyone
    /// changes what every participant sees, so only the message's author may make it (`op.author`
    /// equal to `message.author`; a message whose author is unknown keeps only the operations that
    /// are unknown alike, those stored before authors were recorded).
    public static func isAuthorized(_ op: MessageOp, in message: Message) -> Bool {
        if case .delete(.me) = op.action { return true }
        return op.author == message.author
    }

    /// How many operations of `message` the rules refuse (`isAuthorized` false).
    public static func refusedOperations(in message: Message) -> Int {
        message.ops.filter { !isAuthorized($0, in: message) }.count
    }

    /// The join's normalisation: the operations the rules refuse dropped, then the plaintext of a
    /// deleted message purged. Dropping depends on the author, which is content fixed at sending
    /// (the same on every copy), so it commutes with the union of operations.
    public static func normalized(_ message: Message) -> Message {
        var kept = message
        kept.ops = message.ops.filter { isAuthorized($0, in: message) }
        return purged(kept)
    }

    /// Clears every plaintext of a deleted message (body, media, edit payloads).
    public static func purged(_ message: Message) -> Message {
        guard effective(message).deleted != nil else { return message }
        var purged = message
        purged.body = ""
        purged.media = nil
        purged.ops = message.ops.map(purgedForm)
        return purged
    }

    /// Empty and absent fingerprints are one value.
    static func normalized(_ hash: [UInt8]?) -> [UInt8]? {
        guard let hash, !hash.isEmpty else { return nil }
        return hash
    }

    /// Two copies of one op differ only when one was purged (ids are minted once). Should two
    /// copies differ otherwise, a delete beats an edit (so "deleted" can never be undone and the
    /// purge stays consistent), then the copy whose purged form encodes greater wins; between
    /// equal purged forms the purged copy wins, and between two unpurged copies (equal-looking
    /// text in different Unicode forms, say) the greater encoding.
    /// That is a maximum over a total order of encodings, so the choice is associative and
    /// commutative even for copies that (against the rules) share an id.
    private static func preferred(_ held: MessageOp, _ other: MessageOp) -> MessageOp {
        let (heldBytes, otherBytes) = (MessageOp.codec.encoded(held), MessageOp.codec.encoded(other))
        if heldBytes == otherBytes { return held }
        switch (held.action, other.action) {
        case (.delete, .edit): return held
        case (.edit, .delete): return other
        default: break
        }
        let (heldForm, otherForm) = (MessageOp.codec.encoded(purgedForm(held)), MessageOp.codec.encoded(purgedForm(other)))
        if heldForm != otherForm { return heldForm.lexicographicallyPrecedes(otherForm) ? other : held }
        if heldBytes == heldForm { return held }
        if otherBytes == otherForm { return other }
        return heldBytes.lexicographicallyPrecedes(otherBytes) ? other : held
    }

    private static func purgedForm(_ op: MessageOp) -> MessageOp {
        guard case .edit = op.action else { return op }
        var cleared = op
        cleared.action = .edit(body: "", media: nil)
        return cleared
    }
}
