import Foundation
import NotebookNamespace
import SQLiteStore
import Synchronization
import SyncDevice
import SyncKernel
import XCTest

/// A snapshot worker runs an export, and the blob store calls it makes, on its own thread: the
/// sender and the `BlobStore` calls are `nonisolated(nonsending)`, so they stay on the worker's
/// executor instead of moving to the cooperative pool.
final class SnapshotWorkerTests: XCTestCase {
    /// Whether each recorded call ran on the worker's thread.
    private final class Calls: Sendable {
        let onWorker = Mutex<[Bool]>([])
    }

    /// A folder blob store that records, for each put, whether it ran on `executor`'s thread.
    private struct WatchedBlobStore: BlobStore {
        let inner: FolderBlobStore
        let executor: SerialThreadExecutor
        let calls = Calls()

        var timeToLive: Duration { inner.timeToLive }

        nonisolated(nonsending) func put<Source: ByteSource>(_ source: inout Source) async throws -> BlobID {
            let here = executor.isCurrent
            calls.onWorker.withLock { $0.append(here) }
            return try await inner.put(&source)
        }

        nonisolated(nonsending) func open(_ id: BlobID) async throws -> any BlobReader {
            try await inner.open(id)
        }

        nonisolated(nonsending) func delete(_ id: BlobID) async throws {
            try await inner.delete(id)
        }

        nonisolated(nonsending) func removeExpired() async throws -> Int {
            try await inner.removeExpired()
        }
    }

    func testAnExportAndItsBlobStoreCallsRunOnTheWorkersThread() async throws {
        let world = try DeviceWorld(devices: 1)
        let namespaces = try NamespaceSet([NotebookNamespace.self])
        let store = try KernelStore(path: world.store(0), namespaces: namespaces)
        try store.configureDevice(try world.account.certificate(name: world.names[0]).device)
        try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<50 { try tx.save(DeviceWorld.note(index)) }
        }
        store.close()
        let worker = SnapshotWorker(name: "test.snapshot-worker")
        let blobs = WatchedBlobStore(inner: try FolderBlobStore(directory: world.directory + "/blobs"), executor: worker.executor)
        let request = try SyncRequest(requestID: .random(), replyKey: [UInt8](repeating: 9, count: 32), timestamp: 1_700_000_000_000)
        let answer = await worker.export(request, storePath: world.store(0), namespaces: namespaces, blobStore: blobs,
                                         account: [UInt8](repeating: 3, count: 32), shouldStop: { false })
        guard case .offer(let offer) = answer else { return XCTFail("an offer: \(answer)") }
        XCTAssertGreaterThan(offer.size, 0)
        XCTAssertEqual(blobs.calls.onWorker.withLock { $0 }, [true], "the put ran on the worker's thread")
        XCTAssertFalse(worker.executor.isCurrent, "the test's own thread is not the worker's")
    }
}
