import Foundation

/// One task of a to-do list.
///
/// Invariant: `position` is an order key (`OrderKey`): tasks are listed by it, ties (two devices
/// that put a task at one spot at once) broken by `id`, so every device lists them alike.
public struct TodoTask: Sendable, Hashable {
    /// The task's key: 16 random bytes.
    public var id: [UInt8]
    /// What to do.
    public var title: String
    /// Whether it is done.
    public var done: Bool
    /// Where it sits in the list.
    public var position: String
    /// When it last changed (the change stamp the causal merge watches, never a tie-break).
    public var updatedAt: Date

    /// A task.
    public init(id: [UInt8], title: String, done: Bool = false, position: String, updatedAt: Date) {
        self.id = id
        self.title = title
        self.done = done
        self.position = position
        self.updatedAt = updatedAt
    }

    /// The list order: by position, then by id.
    public static func listOrder(_ lhs: TodoTask, _ rhs: TodoTask) -> Bool {
        lhs.position != rhs.position ? lhs.position < rhs.position : lhs.id.lexicographicallyPrecedes(rhs.id)
    }
}
