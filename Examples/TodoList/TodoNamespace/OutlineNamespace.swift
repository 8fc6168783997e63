import SyncKernel

/// The outline of the example app: items with parent links, merged causally, each row on its
/// own. A delete removes one item, never its children (they stay, add-wins, and show at the root
/// while their parent is gone); a re-parenting is a write of the moved item alone. What a row
/// cannot promise (its parent exists, no cycle) the read side makes true: `OutlineTree`.
public enum OutlineNamespace: SyncNamespace {
    /// The namespace's name on the wire and in the store.
    public static let name = "outline"

    /// Every field hashed: each is something the user wrote.
    public static let schema = RowSchema<OutlineItem>(
        blank: OutlineItem(id: [], title: "", position: "", updatedAt: .distantPast), key: \.id,
        validate: { item throws(SyncKernelError) in
            guard OrderKey.isValid(item.position), item.parent != item.id else {
                throw SyncKernelError(.malformedFrame, "an outline item needs an order key and a parent other than itself")
            }
        }, [
            .hashed("id", \.id, .bytes(count: 16)),
            .hashed("title", \.title, .text),
            .hashed("parent", \.parent, .optional(.bytes(count: 16))),
            .hashed("position", \.position, .text),
            .hashed("updatedAt", \.updatedAt, .date),
        ])

    /// Causal, watching `updatedAt` for change (never as a tie-break).
    public static let mergeRule = MergeRule<OutlineItem>.causal(changeStamp: \.updatedAt)
}
