/// A node of the fixed-shape 16-ary trie over key prefixes: the keys whose nibbles (each byte's
/// high then low half, a key padded with zero nibbles) begin with `nibbles`.
///
/// Invariants: the shape depends on nothing but the keys, so two stores agree on every node's
/// range; a node's key range is contiguous in the kernel's bytewise key order (zero-padding keeps
/// a short key before its extensions), its 16 children tile it in order, and the root (no nibble)
/// is the whole key space. Nodes down to `bucketDepth` are kept persisted as buckets; deeper
/// nodes are summed from the rows of their range.
package struct PrefixNode: Sendable, Hashable {
    /// The depth of the persisted buckets: 16^3 = 4,096 of them.
    package static let bucketDepth = 3
    /// How many buckets there are.
    package static let bucketCount = 1 << (4 * bucketDepth)
    /// The deepest node a peer may name (a 64-byte key prefix).
    package static let maxDepth = 128

    /// The node's nibbles from the root, each 0...15.
    package let nibbles: [UInt8]

    /// The root: every key.
    package static let root = PrefixNode(validated: [])

    private init(validated nibbles: [UInt8]) {
        self.nibbles = nibbles
    }

    /// A node from untrusted nibbles; nil when one exceeds 15 or there are more than `maxDepth`.
    package init?(nibbles: [UInt8]) {
        guard nibbles.count <= PrefixNode.maxDepth, nibbles.allSatisfy({ $0 < 16 }) else { return nil }
        self.init(validated: nibbles)
    }

    /// The bucket at `bucketDepth` holding `key`.
    package static func bucket(of key: [UInt8]) -> Int {
        let first = Int(key.first ?? 0)
        let second = key.count > 1 ? Int(key[1]) : 0
        return first << 4 | second >> 4
    }

    /// The node of a bucket index.
    package static func node(ofBucket bucket: Int) -> PrefixNode {
        PrefixNode(validated: [UInt8(bucket >> 8 & 15), UInt8(bucket >> 4 & 15), UInt8(bucket & 15)])
    }

    /// The node's depth (nibbles from the root).
    package var depth: Int { nibbles.count }

    /// The 16 children, in key order.
    package var children: [PrefixNode] {
        (0..<16).map { PrefixNode(validated: nibbles + [UInt8($0)]) }
    }

    /// The buckets inside this node (for a node no deeper than `bucketDepth`).
    package var buckets: Range<Int> {
        let shift = 4 * (PrefixNode.bucketDepth - min(depth, PrefixNode.bucketDepth))
        let first = nibbles.prefix(PrefixNode.bucketDepth).reduce(0) { $0 << 4 | Int($1) } << shift
        return first..<(first + (1 << shift))
    }

    /// The node's contiguous key range.
    package var range: KeyRange {
        KeyRange(lo: PrefixNode.lowestKey(nibbles), hi: successor.map { PrefixNode.lowestKey($0) })
    }

    /// The nibbles of the next node at the same depth, nil past the last.
    private var successor: [UInt8]? {
        var next = nibbles
        while let last = next.last {
            if last < 15 {
                next[next.count - 1] = last + 1
                return next
            }
            next.removeLast()
        }
        return nil
    }

    /// The smallest key whose zero-padded nibbles begin with `nibbles`: the packed nibbles with
    /// trailing zero bytes dropped.
    private static func lowestKey(_ nibbles: [UInt8]) -> [UInt8] {
        var bytes = [UInt8]()
        var index = 0
        while index < nibbles.count {
            let low = index + 1 < nibbles.count ? nibbles[index + 1] : 0
            bytes.append(nibbles[index] << 4 | low)
            index += 2
        }
        while bytes.last == 0 { bytes.removeLast() }
        return bytes
    }
}
