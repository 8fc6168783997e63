/// `range_req`: the fallback when a sketch cannot decode: trie nodes with the sender's
/// fingerprints to compare, and listings of the sender's leaves in nodes small enough to list.
///
/// Invariants: every node is a `PrefixNode` of at most `PrefixNode.maxDepth` nibbles; a receiver
/// answers each node whose fingerprint differs from its own either with its own children's
/// fingerprints (a 16-way split, in the next `range_req`) or, at or below `listThreshold` items or
/// at the deepest node, with a listing of its leaves there; it answers each listing with the
/// rows the lister lacks or holds differently and the keys it wants back. Each round goes one
/// level deeper, so the exchange ends within `PrefixNode.maxDepth` rounds.
package struct RangeCompare: Sendable, Hashable {
    /// Nodes at or below which a mismatching node is listed instead of split.
    package static let listThreshold = 16

    /// The namespace to reconcile.
    package let namespace: String
    /// Nodes to compare, with the sender's fingerprint of each.
    package let nodes: [NodeFingerprint]
    /// The sender's leaves in nodes it chose to list.
    package let listings: [RangeListing]

    /// A node and the sender's fingerprint over it.
    package struct NodeFingerprint: Sendable, Hashable {
        /// The node.
        package let node: PrefixNode
        /// The sender's fingerprint of the node.
        package let fingerprint: RangeFingerprint

        /// Creates a pair.
        package init(node: PrefixNode, fingerprint: RangeFingerprint) {
            self.node = node
            self.fingerprint = fingerprint
        }
    }

    /// Creates a comparison.
    package init(namespace: String, nodes: [NodeFingerprint], listings: [RangeListing] = []) {
        self.namespace = namespace
        self.nodes = nodes
        self.listings = listings
    }
}
