import SnapshotTransfer
import SyncKernel

/// The import target of a device's snapshot absorb: each transaction runs on the replica host
/// (the one owner of the store), between the loop's other work, while the absorb's fetch, checks
/// and decryption run on its snapshot worker's thread.
///
/// Invariants: the absorb awaits each transaction (the worker's thread is free meanwhile); the
/// host asks `stopping` before each page it imports, so a stop rolls the transaction under way
/// back (`snapshotStopped`).
struct HostImportTarget: SnapshotImportTarget, Sendable {
    let host: ReplicaHost
    let namespaces: NamespaceSet
    /// Whether the absorb is to stop: asked by the host before each page it imports.
    let stopping: @Sendable () -> Bool

    nonisolated(nonsending) func importAbsent(_ pages: [ReconcileResponse], shouldStop: () -> Bool) async throws
        -> SnapshotImportOutcome {
        guard !shouldStop() else { throw SyncKernelError(.snapshotStopped, "the import stopped with its device") }
        return try await host.importAbsent(pages, shouldStop: stopping).get()
    }
}
