/// What a replica reports to its host: refusals, storms, merges and convergence.
///
/// Invariants: every frame the replica refuses (malformed, from a device that is not a sibling or
/// from another account, an undecodable digest, a request it cannot answer) produces exactly one
/// `frameRefused` event, and a response it cannot merge one `applyFailed`, saying why. A sibling
/// on another schema is reported once per remote schema (`peerSchemaMismatch`); its later frames
/// are dropped without another event. A digest that arrives while the storm guard holds its
/// sender back is recorded but starts no round; the `stormSuspected` event that began the
/// back-off says why. Every fresh device epoch the store takes is reported once
/// (`storeRolledBack`), and so is every collision a merge tells apart (`versionsCollided`).
/// Every row the store quarantines (at open, or while the replica reads,
/// ships or merges) is reported once, in a `rowsQuarantined` event after the step that found it.
/// A merge that dropped refused operations reports `operationsRefused` once, and one that settled
/// two different held values of a fill-if-empty field reports `backfillConflict` per key.
/// Every merge that opens a conflict or changes its versions reports `concurrentEdit`, and every
/// merge or local write that supersedes every live version of a key in conflict reports
/// `conflictResolved`, after the step that did it.
public enum ReplicaEvent: Sendable, Hashable {
    /// A frame was refused before acting on it (malformed, unknown sender, foreign account...).
    case frameRefused(from: DeviceID, error: SyncKernelError)
    /// `peer` announced these capabilities (sorted, once each; the kernel's and its host's):
    /// reported when they differ from what it announced before, first at the meeting.
    case siblingCapabilities(peer: DeviceID, capabilities: [String])
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
    /// The device's store was restored, copied or rolled back (or declared so), and took the
    /// fresh device epoch `epoch` before counting another local write, so its edits cannot repeat
    /// a count the fleet holds. `peer` is the sibling whose response showed it
    /// (`EpochReason.peerEvidence`), nil for evidence found when the store was opened. Reported
    /// once per epoch taken.
    case storeRolledBack(reason: EpochReason, epoch: UInt64, peer: DeviceID?)
    /// Merging a response from `peer` found versions of `keys` that carried one vector but
    /// different content (two writes counted alike by a store that lost its history); both are
    /// kept as concurrent versions, none was dropped. Reported when the merge told them apart.
    case versionsCollided(peer: DeviceID, namespace: String, keys: [[UInt8]])
    /// The store found damaged rows and quarantined them (`KernelStore.quarantinedRows()` lists
    /// every one): they left the digest, so a sibling's good copy comes back through the next
    /// exchange.
    case rowsQuarantined([QuarantinedRow])
    /// A merge left `key` of `namespace` with live versions of more than one content (two devices wrote it
    /// concurrently): `versions` are all of them, the visible one first, each with its vector and
    /// writer (`KernelStore.conflictVersions`). Reported when a merge opens a conflict or changes
    /// its set of versions, once per merge that does.
    case concurrentEdit(namespace: String, key: [UInt8], versions: [ConflictVersion])
    /// `key` of `namespace` held live versions of more than one content and now holds one or none: a write
    /// that dominates them all (a resolve, or any later edit or delete that saw them all) was made
    /// here or arrived from a sibling.
    case conflictResolved(namespace: String, key: [UInt8])
    /// A response from `peer` held `count` operations the namespace's rules refuse (an edit or a
    /// delete for everyone made by an account that is not the row's author); the merge dropped
    /// them and stored the rest.
    case operationsRefused(peer: DeviceID, namespace: String, count: Int)
    /// Merging a response from `peer` found `key`'s fill-if-empty `fields` holding a different
    /// value here than in the shipped row (for messages: two devices disagreeing on a sender's
    /// identity); the merge kept the greater on every device, and reports it rather than settling
    /// it silently.
    case backfillConflict(peer: DeviceID, namespace: String, key: [UInt8], fields: [String])
}
