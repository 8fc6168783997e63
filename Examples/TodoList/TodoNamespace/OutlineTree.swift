/// The tree an outline's rows make, the same on every device that holds the same rows.
///
/// Rules (what every device applies to the rows it holds, so all agree once they converge):
/// - an item whose parent is not held (deleted, or not arrived yet) sits at the root;
/// - a parent link that closes a cycle (two devices re-parented apart: A under B here, B under A
///   there) is cut at the item of the cycle with the smallest id, which sits at the root;
/// - items under one parent are listed by position, ties by id.
///
/// Invariant: every held item appears exactly once, under a held parent or at the root, and no
/// item is its own ancestor.
public struct OutlineTree: Sendable, Equatable {
    /// One node: the item and the nodes under it, in order.
    public struct Node: Sendable, Equatable {
        /// The item.
        public let item: OutlineItem
        /// The items under it.
        public let children: [Node]
    }

    /// The items at the root, in order.
    public let roots: [Node]

    /// The tree of `items`.
    public init(_ items: [OutlineItem]) {
        let byID = Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var parent: [[UInt8]: [UInt8]] = [:]
        for item in items {
            if let link = item.parent, byID[link] != nil { parent[item.id] = link }
        }
        // Cut each cycle at its smallest id: walk up from every item; a walk that comes back to an
        // item already on it found a cycle.
        for item in items.sorted(by: { $0.id.lexicographicallyPrecedes($1.id) }) {
            var path: [[UInt8]] = [item.id]
            var onPath: Set<[UInt8]> = [item.id]
            var current = item.id
            while let next = parent[current] {
                if onPath.contains(next) {
                    let cycle = path[(path.firstIndex(of: next) ?? 0)...]
                    if let smallest = cycle.min(by: { $0.lexicographicallyPrecedes($1) }) { parent[smallest] = nil }
                    break
                }
                path.append(next)
                onPath.insert(next)
                current = next
            }
        }
        var children: [[UInt8]?: [OutlineItem]] = [:]
        for item in items { children[parent[item.id], default: []].append(item) }
        func nodes(under id: [UInt8]?) -> [Node] {
            (children[id] ?? []).sorted(by: Self.order).map { Node(item: $0, children: nodes(under: $0.id)) }
        }
        roots = nodes(under: nil)
    }

    /// Siblings' order: by position, then by id.
    private static func order(_ lhs: OutlineItem, _ rhs: OutlineItem) -> Bool {
        lhs.position != rhs.position ? lhs.position < rhs.position : lhs.id.lexicographicallyPrecedes(rhs.id)
    }

    /// The tree as indented titles, depth first (for tests and printing).
    public var outline: [String] {
        var lines: [String] = []
        func walk(_ nodes: [Node], depth: Int) {
            for node in nodes {
                lines.append(String(repeating: "  ", count: depth) + node.item.title)
                walk(node.children, depth: depth + 1)
            }
        }
        walk(roots, depth: 0)
        return lines
    }
}
