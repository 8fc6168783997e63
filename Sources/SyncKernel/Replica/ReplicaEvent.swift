/// What a replica reports to its host: refusals, storms, merges and convergence.
///
/// Invariants: every frame the replica refuses (malformed, from a device that is not a sibling or
/// from another account, an undecodable digest, a request it cannot answer) produces exactly one
/// `frameRefused` event, and a response it cannot merge one `applyFailed`, saying why. A sibling
/// on another schema is reported once per remote schema (`peerSchemaMismatch`); its later frames
/// are dropped without another event. A digest that arrives while the storm guard holds its
/// sender back is recorded but starts no round; the `stormSuspected` event that began the
/// back-off says why.
public enum ReplicaEvent: Sendable, Hashable {
    /// A frame was refused before acting on it (malformed, unknown sender, foreign account...).
    case frameRefused(from: DeviceID, error: SyncKernelError)
    /// A sibling speaks another schema (namespace set or leaf encoding): no reconcile with it
    /// until one side updates. Reported once per sibling and remote schema.
    case peerSchemaMismatch(peer: DeviceID, local: SchemaFingerprint, remote: SchemaFingerprint)
    /// The storm guard tripped with `peer`: these namespaces kept diverging after reconciling
    /// (more than `LoopTiming.stormRoundLimit` rounds without progress each, inside the window);
    /// the pair backs off until `backoffUntil`.
    case stormSuspected(peer: DeviceID, namespaces: [String], backoffUntil: Int64)
    /// A response from `peer` was merged (possibly changing nothing).
    case applied(peer: DeviceID, outcome: ApplyOutcome)
    /// A response from `peer` could not be merged; nothing of it was written.
    case applyFailed(peer: DeviceID, namespace: String, error: SyncKernelError)
    /// Reconciling with `peer` reached matching roots.
    case converged(peer: DeviceID)
    /// The store could not read what a frame needed (a spec digest's scan failed); nothing was sent.
    case storeFailed(error: SyncKernelError)
}
