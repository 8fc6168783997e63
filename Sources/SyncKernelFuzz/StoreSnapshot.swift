import SyncKernel

/// Everything a refused frame or a failed local edit must leave as it was: per namespace the
/// leaves (rows by key and leaf hash), tombstones and the `RowVersion` of every leaf and tombstone
/// key, and the store's digest and change counters.
///
/// Invariant: two snapshots of one store are equal exactly when none of those changed.
struct StoreSnapshot: Equatable {
    let leaves: [[Leaf]]
    let tombstones: [[Tombstone]]
    let versions: [[RowVersion?]]
    let digest: [UInt8]
    let changes: [UInt64]

    /// Reads the snapshot of `store` over its namespaces.
    init(_ store: KernelStore) throws(SyncKernelError) {
        var leaves: [[Leaf]] = []
        var tombstones: [[Tombstone]] = []
        var versions: [[RowVersion?]] = []
        for name in store.namespaces.names {
            let held = try store.leaves(namespace: name)
            let deleted = try store.tombstones(namespace: name)
            var kept: [RowVersion?] = []
            for key in held.map(\.key) + deleted.map(\.key) { kept.append(try store.version(namespace: name, key: key)) }
            leaves.append(held)
            tombstones.append(deleted)
            versions.append(kept)
        }
        self.leaves = leaves
        self.tombstones = tombstones
        self.versions = versions
        digest = store.encodedStateDigest()
        changes = store.changeCounters()
    }
}
