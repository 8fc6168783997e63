/// One row shipped in a `reconcile_resp`: its canonical row encoding and, for causal namespaces, its vector.
public struct ShippedRow: Sendable, Hashable {
    /// The row exactly as the namespace's `encodeRow` wrote it.
    public let row: [UInt8]
    /// The row's version vector (nil for untracked namespaces, or from a peer that sent none).
    public let vector: VersionVector?
    /// The vector of the write the content came from, when it differs from `vector`.
    public let contentVector: VersionVector?
    /// Concurrent versions of the same key that lost the tie-break, each with its own vector
    /// (`contentVector` unused); kept so that no concurrent write is lost to a tie.
    public let siblings: [ShippedRow]

    /// Creates a shipped row.
    public init(row: [UInt8], vector: VersionVector?, contentVector: VersionVector? = nil, siblings: [ShippedRow] = []) {
        self.row = row
        self.vector = vector
        self.contentVector = contentVector
        self.siblings = siblings
    }
}
