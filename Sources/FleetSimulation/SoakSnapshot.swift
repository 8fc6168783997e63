import SyncKernel

/// What one store holds of one namespace, as it would ship it: every synced row with its vectors
/// and kept concurrent versions, and every delete version.
///
/// Invariant: `rows` and `tombstones` are in the store's key order, so what a write changed
/// (`changes(since:)`) comes out in a deterministic order too.
struct SoakSnapshot {
    /// The namespace read.
    let namespace: String
    /// Every synced row as the store would ship it, in key order.
    let rows: [ShippedRow]
    /// Every delete version, in key order.
    let tombstones: [Tombstone]

    /// Reads `namespace` of `store` through the store's own shipping path.
    init(_ store: KernelStore, namespace: String) throws(SyncKernelError) {
        let keys = try store.leaves(namespace: namespace).map(\.key) + store.tombstones(namespace: namespace).map(\.key)
        let responses = try store.respond(toKeys: keys, namespace: namespace)
        self.namespace = namespace
        rows = responses.flatMap(\.rows)
        tombstones = responses.flatMap(\.tombstones)
    }

    /// The rows and delete versions this snapshot holds that `earlier` did not (what happened to
    /// the namespace in between), as one response to merge; nil when nothing changed.
    func changes(since earlier: SoakSnapshot) -> ReconcileResponse? {
        let knownRows = Set(earlier.rows)
        let knownTombstones = Set(earlier.tombstones)
        let rows = rows.filter { !knownRows.contains($0) }
        let tombstones = tombstones.filter { !knownTombstones.contains($0) }
        guard !rows.isEmpty || !tombstones.isEmpty else { return nil }
        return ReconcileResponse(namespace: namespace, rows: rows, tombstones: tombstones, isFinal: true)
    }
}
