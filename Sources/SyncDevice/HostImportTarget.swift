import Dispatch
import SnapshotTransfer
import Synchronization
import SyncKernel

/// The import target of a device's snapshot absorb: each transaction runs on the replica host
/// (the one owner of the store), between the loop's other work, while the absorb's fetch, checks
/// and decryption run on a thread of their own.
///
/// Invariants: `importAbsent` is called only from that thread (an executor of its own, never a
/// thread of the cooperative pool or an actor's), and it waits there for the host's answer; the
/// host's import needs nothing of that thread, so the wait always ends.
struct HostImportTarget: SnapshotImportTarget, Sendable {
    let host: ReplicaHost
    let namespaces: NamespaceSet
    /// Whether the absorb is to stop: asked by the host before each page it imports.
    let stopping: @Sendable () -> Bool

    /// A hand-off of one transaction's result from the host to the waiting thread.
    private final class Handoff: Sendable {
        let result = Mutex<Result<SnapshotImportOutcome, SyncKernelError>?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    func importAbsent(_ pages: [ReconcileResponse], shouldStop: () -> Bool) throws(SyncKernelError) -> SnapshotImportOutcome {
        guard !shouldStop() else { throw SyncKernelError(.snapshotStopped, "the import stopped with its device") }
        let handoff = Handoff()
        let (host, stopping) = (host, stopping)
        Task {
            let result = await host.importAbsent(pages, shouldStop: stopping)
            handoff.result.withLock { $0 = result }
            handoff.done.signal()
        }
        handoff.done.wait()
        guard let result = handoff.result.withLock({ $0 }) else {
            throw SyncKernelError(.snapshotStopped, "the import ended without an answer from its host")
        }
        return try result.get()
    }
}
