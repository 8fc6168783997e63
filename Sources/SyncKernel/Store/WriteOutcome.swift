/// What a local write changed.
///
/// Invariant: `resolvedConflicts` lists exactly the keys whose open conflict (more than one live
/// version) a save, delete or resolve of this write superseded, per namespace, each once.
public struct WriteOutcome: Sendable, Hashable {
    /// Namespaces whose leaves changed (these mark the state dirty).
    public let changedNamespaces: Set<String>
    /// Row writes performed (including ones that left the leaf as it was).
    public let rowsWritten: Int
    /// Keys whose open conflict this write resolved, by namespace (keys sorted).
    public let resolvedConflicts: [String: [[UInt8]]]
    /// The keys whose item the write moved, by namespace of `changedNamespaces`, for a namespace
    /// where they were at most `RowWriter.movedKeyLimit`; a changed namespace absent here moved
    /// more. What the replica pushes to a sibling it was in step with (it sorts them when it
    /// pushes, so a write does not).
    package var movedKeys: [String: Set<[UInt8]>] = [:]

    /// A write's outcome.
    public init(changedNamespaces: Set<String>, rowsWritten: Int, resolvedConflicts: [String: [[UInt8]]] = [:]) {
        self.changedNamespaces = changedNamespaces
        self.rowsWritten = rowsWritten
        self.resolvedConflicts = resolvedConflicts
    }
}
