/// One side of a causal merge: its version vector, the vector its content came from, and
/// whether it is a live value or a tombstone.
package struct MergeCandidate: Sendable, Hashable {
    /// The side's version vector.
    package let vector: VersionVector
    /// The vector of the write that produced the side's content (its own vector for a tombstone).
    package let contentVector: VersionVector
    /// True for a live value, false for a tombstone.
    package let isLive: Bool

    /// Creates a candidate; the content vector defaults to the side's vector.
    package init(vector: VersionVector, isLive: Bool, contentVector: VersionVector? = nil) {
        self.vector = vector
        self.contentVector = contentVector ?? vector
        self.isLive = isLive
    }
}
