import SyncKernel

/// The outline of the example app: items with parent links, merged causally, each row on its
/// own. A delete removes one item, never its children (they stay, add-wins, and show at the root
/// while their parent is gone); a re-parenting is a write of the moved item alone. What a row
/// cannot promise (its parent exists, no cycle) the read side makes true: `OutlineTree`.
public enum OutlineNamespace: SyncNamespace {
    public static let name = "outline"

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

    public static let mergeRule = MergeRule<OutlineItem>.causal(changeStamp: \.updatedAt)
}
