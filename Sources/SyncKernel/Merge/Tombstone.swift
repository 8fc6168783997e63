/// A deleted row's key and the vector of the delete.
public struct Tombstone: Sendable, Hashable {
    /// The deleted row's key.
    public let key: [UInt8]
    /// The vector the delete was made (or merged) under.
    public let vector: VersionVector

    /// Creates a tombstone.
    public init(key: [UInt8], vector: VersionVector) {
        self.key = key
        self.vector = vector
    }
}
