/// What a local write changed.
public struct WriteOutcome: Sendable, Hashable {
    /// Namespaces whose leaves changed (these mark the state dirty).
    public let changedNamespaces: Set<String>
    /// Row writes performed (including ones that left the leaf as it was).
    public let rowsWritten: Int
}
