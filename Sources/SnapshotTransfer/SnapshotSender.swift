import SyncKernel

/// A sibling's side of the snapshot transfer: answers a `SyncRequest` by exporting its store,
/// sealing it under a fresh random key and nonce, storing the sealed blob, and offering it.
///
/// Invariants: every answer draws its own key and base nonce (`entropy`, the operating system's
/// random bytes unless a test injects a seeded source), so no two snapshots share a key; the
/// algorithm is AES-256-GCM only when this machine runs it and the requester opens it
/// (`SealingAlgorithm.choose`); the store is read, sealed and stored in one stream (memory bounded
/// by one page and one chunk); a failure is answered with `SyncBroken` naming the step that
/// threw (export, seal, upload) and its code, never with a decline, and leaves no blob behind
/// (the blob store removes a failed put). The key, nonce and hash leave only inside the offer,
/// which the caller seals to the requester. `nonisolated(nonsending)`: the export, sealing and
/// store calls run on the caller's executor, so a host runs it on a thread where blocking on its
/// store is acceptable (a device: an actor on an executor of its own). Not `Sendable`: its entropy source belongs to it.
public struct SnapshotSender {
    /// Where sealed blobs go.
    public let blobStore: any BlobStore
    /// Plaintext bytes per sealed chunk.
    public var chunkBytes = SealedBlobFormat.defaultChunkBytes
    /// Keys per page.
    public var pageKeys = 4_096
    /// Bytes per page, about.
    public var pageBytes = 1 << 20
    /// Whether this machine seals with AES-256-GCM when the requester opens it.
    public var aesAvailable = SealingAlgorithm.aesGCMAvailable
    private let entropy: EntropySource

    /// A sender storing blobs in `blobStore`, drawing keys and nonces from `entropy`.
    public init(blobStore: any BlobStore, entropy: EntropySource = .system) {
        self.blobStore = blobStore
        self.entropy = entropy
    }

    /// Answers `request` with a snapshot of `store` for `account` (this device's userIDHash):
    /// an offer, or a `SyncBroken` when a step failed. `progress` hears every sealed piece stored;
    /// `shouldStop` is asked before each piece is read, and once it answers true the export ends
    /// with `snapshotStopped` (the partly stored blob removed, as for any failed upload).
    public nonisolated(nonsending) func answer(_ request: SyncRequest, store: KernelStore, account: [UInt8],
                                               progress: @escaping (SnapshotProgress) -> Void = { _ in },
                                               shouldStop: @escaping () -> Bool = { false }) async -> SnapshotSendResult {
        await answer(request, source: store, account: account, progress: progress, shouldStop: shouldStop)
    }

    /// Answers `request` as `answer(_:store:account:progress:shouldStop:)` does, with the snapshot
    /// paged from `source` (a read-only connection beside the device's store, so the export holds
    /// no connection the device syncs through).
    package nonisolated(nonsending) func answer(_ request: SyncRequest, source: any SnapshotPageSource, account: [UInt8],
                                                progress: @escaping (SnapshotProgress) -> Void = { _ in },
                                                shouldStop: @escaping () -> Bool = { false }) async -> SnapshotSendResult {
        let started = ContinuousClock.now
        var report = SnapshotSendReport()
        let algorithm = SealingAlgorithm.choose(accepted: request.accepts, aesAvailable: aesAvailable)
        report.algorithm = algorithm
        let key = entropy.bytes(SealingAlgorithm.keyBytes)
        let nonce = entropy.bytes(algorithm.nonceBytes)
        func broken(_ stage: SyncBroken.Stage, _ error: any Error) -> SnapshotSendResult {
            report.totalTime = started.duration(to: .now)
            return SnapshotSendResult(message: .broken(SyncBroken(requestID: request.requestID, stage: stage, error: error)),
                                      report: report, error: error)
        }
        let exporter = SnapshotExporter(source: source, account: account, pageKeys: pageKeys, pageBytes: pageBytes)
        let sealer: SnapshotSealer<SnapshotExporter>
        do {
            sealer = try SnapshotSealer(plaintext: exporter, cipher: SnapshotCipher(algorithm: algorithm, key: key, nonce: nonce),
                                        chunkBytes: chunkBytes)
        } catch {
            return broken(.seal, error)
        }
        var metered = MeteredSource(sealer: sealer, progress: progress, shouldStop: shouldStop)
        let stored: Result<BlobID, any Error>
        do {
            stored = .success(try await blobStore.put(&metered))
        } catch {
            stored = .failure(error)
        }
        let finished = metered.sealer
        let exported = finished.source
        report.pages = exported.pages
        report.rows = exported.rows
        report.deletes = exported.deletes
        report.keysLeftOut = exported.keysLeftOut
        report.plaintextBytes = exported.bytes
        report.sealedBytes = finished.size
        report.exportTime = exported.exportTime
        report.sealTime = finished.sealTime
        let total = started.duration(to: .now)
        report.uploadTime = total - exported.exportTime - finished.sealTime
        switch stored {
        case .failure(let error):
            return broken(finished.sourceFailure != nil ? .export : finished.sealFailure != nil ? .seal : .upload, error)
        case .success(let id):
            do {
                guard let sha256 = finished.sha256 else {
                    throw SnapshotTransferError(.blobStoreFailed, "the blob store stopped reading before the end")
                }
                let offer = try SyncOffer(requestID: request.requestID, blobID: id, algorithm: algorithm, key: key, nonce: nonce,
                                          sha256: sha256, size: finished.size)
                report.totalTime = started.duration(to: .now)
                return SnapshotSendResult(message: .offer(offer), report: report, error: nil)
            } catch {
                try? await blobStore.delete(id)
                return broken(.upload, error)
            }
        }
    }
}
