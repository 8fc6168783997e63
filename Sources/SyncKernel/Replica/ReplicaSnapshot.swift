/// A replica's state at one moment, for a host's status display: its store's summary, what it
/// knows of each sibling and how many rounds it started.
///
/// Invariants: taken in one step of the replica's actor (`ReplicaHost.snapshot`), so the summary
/// and the sibling states describe the same moment; `siblings` is in the replica's sibling order
/// (sorted, each once).
public struct ReplicaSnapshot: Sendable, Hashable {
    /// The store's device, namespaces, items and roots.
    public let summary: StoreSummary
    /// Every sibling's state, sorted by device.
    public let siblings: [SiblingState]
    /// Reconcile rounds the replica started since it was created.
    public let roundsStarted: Int
    /// Frames it sent that another part of the same answer follows (`Replica.partsAhead`).
    public let partsAhead: Int

    /// A snapshot.
    public init(summary: StoreSummary, siblings: [SiblingState], roundsStarted: Int, partsAhead: Int = 0) {
        self.summary = summary
        self.siblings = siblings
        self.roundsStarted = roundsStarted
        self.partsAhead = partsAhead
    }
}
