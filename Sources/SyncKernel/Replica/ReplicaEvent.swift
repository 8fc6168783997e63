/// What a replica reports to its host: refusals, storms, merges and convergence.
///
/// Invariant: every frame the replica does not act on produces exactly one event saying why,
/// so nothing is dropped silently (a peer on another schema, a foreign account, a bad frame).
public enum ReplicaEvent: Sendable, Hashable {
    /// A frame was refused before acting on it (malformed, unknown sender, foreign account...).
    case frameRefused(from: DeviceID, error: SyncKernelError)
    /// A sibling speaks another schema (namespace set or leaf encoding): no reconcile with it
    /// until one side updates. Reported once per sibling and remote schema.
    case peerSchemaMismatch(peer: DeviceID, local: SchemaFingerprint, remote: SchemaFingerprint)
    /// The storm guard tripped with `peer`: these namespaces kept diverging after reconciling.
    case stormSuspected(peer: DeviceID, namespaces: [String], backoffUntil: Int64)
    /// A response from `peer` was merged (possibly changing nothing).
    case applied(peer: DeviceID, outcome: ApplyOutcome)
    /// A response from `peer` could not be merged; nothing of it was written.
    case applyFailed(peer: DeviceID, namespace: String, error: SyncKernelError)
    /// Reconciling with `peer` reached matching roots.
    case converged(peer: DeviceID)
}
