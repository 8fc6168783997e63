/// What `KernelStore.repair()` changed.
///
/// Invariant: every row it quarantined was a damaged row of the check it ran first, and every
/// structure it rebuilt was one that check found differing.
public struct RepairOutcome: Sendable, Hashable {
    /// The rows it quarantined (site `repair`), in quarantine order.
    public let quarantined: [QuarantinedRow]
    /// The namespaces whose structure it rebuilt from their stored leaves, in name order.
    public let rebuiltStructures: [String]
}
