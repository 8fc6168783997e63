import Foundation

/// An immutable operation on a message.
///
/// Invariant: `causalOrder` is one more than the largest order among the operations the editing
/// device held when it made this one, so an edit made after seeing another always orders after
/// it, whatever either device's clock says.
public struct MessageOp: Sendable, Hashable {
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
    /// The editing device's wall clock, whole seconds: a tie-break between concurrent edits only.
    public var editedAt: Date

    /// Creates an operation.
    public init(opID: [UInt8], action: Action, causalOrder: UInt64, editedAt: Date) {
        self.opID = opID
        self.action = action
        self.causalOrder = causalOrder
        self.editedAt = editedAt
    }
}
