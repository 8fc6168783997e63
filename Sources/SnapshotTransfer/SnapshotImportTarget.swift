import SyncKernel

/// Where a snapshot's pages are imported: a store, or a host that runs each import transaction
/// on the actor that owns its store.
///
/// ## Implementation requirements
/// - `importAbsent` has `KernelStore.importAbsent`'s contract: one transaction per call, a key
///   the store holds anything under left alone, nothing of the call written when it throws, and
///   `snapshotStopped` (rolling back) once `shouldStop` answers true.
/// - `namespaces` is the store's own set: the importer checks the snapshot's schema and pages
///   against it before any page is imported.
/// - `importAbsent` is `nonisolated(nonsending)`: it runs on the importer's executor, and an
///   implementation that hands the transaction to the actor owning the store awaits it there.
package protocol SnapshotImportTarget {
    /// The namespaces the store syncs, and so their schema.
    var namespaces: NamespaceSet { get }

    /// Imports `pages` insert-if-absent in one transaction.
    nonisolated(nonsending) func importAbsent(_ pages: [ReconcileResponse], shouldStop: () -> Bool) async throws
        -> SnapshotImportOutcome
}

extension KernelStore: SnapshotImportTarget {}
