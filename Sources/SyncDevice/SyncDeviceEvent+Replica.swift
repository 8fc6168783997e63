import SyncKernel

extension SyncDeviceEvent {
    /// The device event that tells what a replica event tells: a one-to-one mapping, with a merge's
    /// outcome reduced to its counts (`AppliedChanges`) and errors to their stable reports.
    package init(_ event: ReplicaEvent) {
        switch event {
        case .frameRefused(let from, let error): self = .frameRefused(peer: from, error: ErrorReport(error))
        case .siblingCapabilities(let peer, let capabilities): self = .siblingCapabilities(peer: peer, capabilities: capabilities)
        case .peerSchemaMismatch(let peer, let local, let remote): self = .schemaMismatch(peer: peer, local: local, remote: remote)
        case .stormSuspected(let peer, let namespaces, let until): self = .stormSuspected(peer: peer, namespaces: namespaces, backoffUntil: until)
        case .applied(let peer, let outcome): self = .applied(peer: peer, changes: AppliedChanges(outcome))
        case .applyFailed(let peer, let namespace, let error): self = .applyFailed(peer: peer, namespace: namespace, error: ErrorReport(error))
        case .converged(let peer): self = .roundCompleted(peer: peer)
        case .storeFailed(let error): self = .storeFailed(error: ErrorReport(error))
        case .storeRolledBack(let reason, let epoch, let peer): self = .storeRolledBack(reason: reason, epoch: epoch, peer: peer)
        case .versionsCollided(let peer, let namespace, let keys): self = .versionsCollided(peer: peer, namespace: namespace, keys: keys)
        case .rowsQuarantined(let rows): self = .rowsQuarantined(rows)
        case .concurrentEdit(let namespace, let key, let versions): self = .concurrentEdit(namespace: namespace, key: key, versions: versions)
        case .conflictResolved(let namespace, let key): self = .conflictResolved(namespace: namespace, key: key)
        case .operationsRefused(let peer, let namespace, let count): self = .operationsRefused(peer: peer, namespace: namespace, count: count)
        case .backfillConflict(let peer, let namespace, let key, let fields):
            self = .backfillConflict(peer: peer, namespace: namespace, key: key, fields: fields)
        }
    }
}
