import SyncKernel

/// The to-do list of the example app: tasks edited on any device, merged causally.
///
/// Rule: `.causal`. A task is renamed, ticked and moved on any device, so the merge must know
/// whether one edit had seen the other; version vectors decide, and two edits that did not see
/// each other are kept as a conflict. Every field is hashed: each is something the user wrote.
public enum TodoNamespace: SyncNamespace {
    /// The namespace's name on the wire and in the store.
    public static let name = "todo"

    /// Every field hashed; a position that is not an order key is refused.
    public static let schema = RowSchema<TodoTask>(
        blank: TodoTask(id: [], title: "", position: "", updatedAt: .distantPast), key: \.id,
        validate: { task throws(SyncKernelError) in
            guard OrderKey.isValid(task.position) else { throw SyncKernelError(.malformedFrame, "a task's position is not an order key") }
        }, [
            .hashed("id", \.id, .bytes(count: 16)),
            .hashed("title", \.title, .text),
            .hashed("done", \.done, .bool),
            .hashed("position", \.position, .text),
            .hashed("updatedAt", \.updatedAt, .date),
        ])

    /// Causal, watching `updatedAt` for change (never as a tie-break).
    public static let mergeRule = MergeRule<TodoTask>.causal(changeStamp: \.updatedAt)
}
