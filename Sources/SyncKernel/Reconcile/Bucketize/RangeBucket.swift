/// A range fingerprint: a key range with the Merkle root and count of the leaves inside it.
///
/// Invariant: `root == MerkleTree.root` of the sender's leaf hashes in `range` and `count` is
/// their number; a responder compares both, so the check does not rest on the root alone.
package struct RangeBucket: Sendable, Hashable {
    /// The key range the bucket summarises.
    package let range: KeyRange
    /// The Merkle root over the leaves in the range.
    package let root: [UInt8]
    /// How many leaves are in the range.
    package let count: Int

    /// Creates a bucket.
    package init(range: KeyRange, root: [UInt8], count: Int) {
        self.range = range
        self.root = root
        self.count = count
    }
}
