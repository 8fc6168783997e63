/// One side of a causal merge: its version vector, the vector its content came from, and
/// whether it is a live value or a tombstone.
public struct MergeCandidate: Sendable, Hashable {
    /// The side's version vector.
    public let vector: VersionVector
    /// The vector of the write that produced the side's content (its own vector for a tombstone).
    public let contentVector: VersionVector
    /// True for a live value, false for a tombstone.
    public let isLive: Bool

    /// Creates a candidate; the content vector defaults to the side's vector.
    public init(vector: VersionVector, isLive: Bool, contentVector: VersionVector? = nil) {
        self.vector = vector
        self.contentVector = contentVector ?? vector
        self.isLive = isLive
    }
}
