import SyncKernel

/// What one response or push of a sibling's did to a namespace of this device's store: how many
/// rows and delete versions it merged, and whether the store's digest moved.
///
/// Invariant: counts only (never a key or row contents), taken from the merge that committed.
public struct AppliedChanges: Sendable, Hashable {
    /// The namespace the rows went into.
    public let namespace: String
    /// Rows the merge took in or changed.
    public let rows: Int
    /// Delete versions the merge took in.
    public let deletes: Int
    /// Whether the store's digest of the namespace moved (something visible changed).
    public let changedDigest: Bool
    /// Pushed rows and deletes left unmerged because this store could not read them against its
    /// own state (`ApplyOutcome.unresolvedKeys`); the replica asked for them whole.
    public let unresolved: Int

    /// The changes `outcome` reports.
    package init(_ outcome: ApplyOutcome) {
        namespace = outcome.namespace
        rows = outcome.rowsApplied
        deletes = outcome.tombstonesApplied
        changedDigest = outcome.digestChanged
        unresolved = outcome.unresolvedKeys.count
    }
}
