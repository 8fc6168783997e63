import Foundation
import SyncKernel

/// An immutable operation on a message.
///
/// Invariant: `causalOrder` is one more than the largest order among the operations the editing
/// device held when it made this one, so an edit made after seeing another always orders after
/// it, whatever either device's clock says; it is at most `maxCausalOrder` (a message holding an
/// op above it is refused when decoded, so never stored). `author` is the account fingerprint of
/// the account whose device made the operation: an edit or a delete for everyone stands only
/// when it is the message's author (`MessageFold.isAuthorized`).
public struct MessageOp: Sendable, Hashable {
    /// The largest causal counter an op may carry: 2^63 - 1, as `VersionVector.maxCounter` and for
    /// the same reason: a new op's counter is one more than the largest held and is refused
    /// (`counterOutOfRange`) once the largest held is at this bound, so it never overflows; a
    /// message from a peer holding a larger one is refused (`counterOutOfRange`) before it is
    /// stored, so no peer can leave this device a message it cannot edit without trapping.
    public static let maxCausalOrder = UInt64(Int64.max)

    /// What the operation does.
    public enum Action: Sendable, Hashable {
        /// Replace the visible body and media.
        case edit(body: String, media: String?)
        /// Delete the message for this account only or for everyone.
        case delete(DeleteScope)
    }

    /// 16 random bytes naming the operation.
    public var opID: [UInt8]
    /// The operation.
    public var action: Action
    /// The causal counter (a Lamport clock over this message's operations).
    public var causalOrder: UInt64
    /// The editing device's wall clock, whole seconds: shown to readers, never used to order edits.
    public var editedAt: Date
    /// The account fingerprint of the account that made the operation (empty: unknown, an
    /// operation stored before authors were recorded).
    public var author: [UInt8]

    /// Creates an operation made by the account `author`.
    public init(opID: [UInt8], action: Action, causalOrder: UInt64, editedAt: Date, author: [UInt8] = []) {
        self.opID = opID
        self.action = action
        self.causalOrder = causalOrder
        self.editedAt = editedAt
        self.author = author
    }

    /// The wire form: `[opID, action, causalOrder, editedAt, author]`, the action as
    /// `[0, body, media]` for an edit or `[1, scope]` for a delete.
    public static let codec = FieldCodec<MessageOp>.record(
        MessageOp(opID: [], action: .delete(.me), causalOrder: 0, editedAt: .distantPast), [
            .member("opID", \.opID, .bytes(count: 16)), .member("action", \.action, Action.codec),
            .member("causalOrder", \.causalOrder, .uint64), .member("editedAt", \.editedAt, .date),
            .member("author", \.author, .bytes()),
        ])

    /// The wire form before operations named their author, `[opID, action, causalOrder,
    /// editedAt]` (row format 1 of the messages namespace), read by its migration: the author
    /// reads as empty.
    public static let codecV1 = FieldCodec<MessageOp>.record(
        MessageOp(opID: [], action: .delete(.me), causalOrder: 0, editedAt: .distantPast), [
            .member("opID", \.opID, .bytes(count: 16)), .member("action", \.action, Action.codec),
            .member("causalOrder", \.causalOrder, .uint64), .member("editedAt", \.editedAt, .date),
        ])
}

extension MessageOp.Action {
    /// The wire form of an action: `[0, body, media]` for an edit, `[1, scope]` for a delete.
    public static let codec = FieldCodec<MessageOp.Action>.custom("messageOpAction", write: { action, writer in
        switch action {
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
    }, read: { value throws(SyncKernelError) in
        let items = try value.array()
        switch (try items.first?.uint(), items.count) {
        case (0, 3): return .edit(body: try items[1].text(), media: try items[2].nullableText())
        case (1, 2): return .delete(try FieldCodec<DeleteScope>.enumeration().decode(items[1]))
        default: throw SyncKernelError(.malformedFrame, "a message op action")
        }
    })
}
