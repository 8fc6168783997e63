import SnapshotTransfer
import SQLiteStore
import SyncKernel

/// Where a device's snapshot work runs: an actor on an executor with a thread of its own, so an
/// export's store reads, sealing and blob store calls, or an absorb's fetch, checks and
/// decryption, block that thread and never the replica host's, the desk's or the cooperative
/// pool's.
///
/// Invariants: one piece of work at a time, in call order; `SnapshotSender.answer` and
/// `SnapshotReceiver.absorb` are `nonisolated(nonsending)`, so they and the `BlobStore` calls they
/// make run on this actor's thread; the store connection an export reads through is opened, used
/// and closed here.
package actor SnapshotWorker {
    /// The executor the actor runs on.
    package nonisolated let executor: SerialThreadExecutor

    /// A worker whose thread is named `name`.
    package init(name: String) {
        executor = SerialThreadExecutor(name: name)
    }

    /// The actor's executor: `executor`.
    package nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Exports, seals and stores a snapshot of the store at `path` for `request` through a
    /// read-only connection of its own, and returns the answer to send.
    package func export(_ request: SyncRequest, storePath path: String, namespaces: NamespaceSet, blobStore: any BlobStore,
                account: [UInt8], shouldStop: @escaping @Sendable () -> Bool) async -> TransferMessage {
        let reader: StoreReadConnection
        do throws(SyncKernelError) {
            reader = try StoreReadConnection(path: path, namespaces: namespaces)
        } catch {
            return .broken(SyncBroken(requestID: request.requestID, stage: .export, error: error))
        }
        defer { reader.close() }
        return await SnapshotSender(blobStore: blobStore).answer(request, source: reader, account: account,
                                                                 shouldStop: shouldStop).message
    }

    /// Fetches, checks and decrypts `offer` and imports it through `target`.
    func absorb(_ offer: SyncOffer, receiver: SnapshotReceiver, into target: HostImportTarget, account: [UInt8],
                progress: @escaping @Sendable (SnapshotProgress) -> Void, shouldStop: @escaping @Sendable () -> Bool)
        async -> SnapshotAbsorbResult {
        await receiver.absorb(offer, into: target, account: account, progress: progress, shouldStop: shouldStop)
    }
}
