import Foundation

/// One item of an outline (a task with sub-tasks): a parent link and a place among its siblings.
///
/// Invariant: `parent` is another item's id or nil (the root); nothing in the row itself rules out
/// a missing parent or a cycle (two devices may re-parent apart), which `OutlineTree` resolves
/// the same way on every device.
public struct OutlineItem: Sendable, Hashable {
    /// The item's key: 16 random bytes.
    public var id: [UInt8]
    /// What it says.
    public var title: String
    /// The item it sits under; nil at the root.
    public var parent: [UInt8]?
    /// Its place among the items under the same parent (`OrderKey`).
    public var position: String
    /// When it last changed (the change stamp the causal merge watches).
    public var updatedAt: Date

    /// An item.
    public init(id: [UInt8], title: String, parent: [UInt8]? = nil, position: String, updatedAt: Date) {
        self.id = id
        self.title = title
        self.parent = parent
        self.position = position
        self.updatedAt = updatedAt
    }
}
