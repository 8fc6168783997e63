#if canImport(Glibc)
import Glibc
#endif
import SyncEnvelope
import SyncKernel

/// The requester's side of the snapshot transfer: absorbs an offer into its store.
///
/// The steps, in order; the first that fails ends the absorb with `ack.ok == false`:
/// 1. the offer's size is at most `maxBlobBytes` (`limitExceeded`, before anything is fetched) and
///    its algorithm runs here (`unsupportedAlgorithm`);
/// 2. the blob is opened by id and its stored size must be the offer's (`snapshotHashMismatch`);
/// 3. the blob is fetched into a spool file (mode 0600, in `spoolDirectory`, removed at the end
///    whatever happens) while it is hashed; more bytes than the offer's size stop the fetch;
/// 4. the SHA-256 and size of what was fetched must be the offer's, compared in constant time
///    (`snapshotHashMismatch`): BEFORE anything is decrypted, so bytes the offer does not vouch
///    for are never decrypted and nothing of them is imported;
/// 5. every chunk is authenticated (`snapshotUnauthentic`), still importing nothing;
/// 6. the chunks are decrypted again and imported insert-if-absent (`SnapshotImporter`), in
///    transactions of about `rowsPerTransaction` rows.
///
/// Invariants: memory is bounded by one chunk, one page and one transaction's rows, whatever the
/// snapshot's size; a blob that fails steps 1 to 5 leaves the store exactly as it was; a
/// re-import of the same snapshot changes nothing. `nonisolated(nonsending)`: the fetch, checks,
/// decryption and import run on the caller's executor (a device: an actor on a thread of its own).
public struct SnapshotReceiver: Sendable {
    /// Where offered blobs are fetched from.
    public let blobStore: any BlobStore
    /// Where the spool file is written.
    public let spoolDirectory: String
    /// The largest sealed blob this device fetches.
    public var maxBlobBytes: Int64 = 64 << 30
    /// Rows and deletes per import transaction.
    public var rowsPerTransaction = 20_000

    /// A receiver fetching from `blobStore` through a spool file in `spoolDirectory`.
    public init(blobStore: any BlobStore, spoolDirectory: String) {
        self.blobStore = blobStore
        self.spoolDirectory = spoolDirectory
    }

    /// Absorbs the snapshot `offer` describes into `store` for `account` (this device's
    /// userIDHash); `progress` hears every piece fetched, checked and imported. `shouldStop` is
    /// asked before each piece is fetched or checked and before each page is read or written; once
    /// it answers true the absorb ends with `snapshotStopped`: the transaction under way rolls back,
    /// the transactions the import committed stay (an import only inserts what is absent, so a
    /// later import or the digest loop completes it), nothing else is written.
    public nonisolated(nonsending) func absorb(_ offer: SyncOffer, into store: KernelStore, account: [UInt8],
                                               progress: @escaping (SnapshotProgress) -> Void = { _ in },
                                               shouldStop: @escaping () -> Bool = { false }) async -> SnapshotAbsorbResult {
        await absorb(offer, into: store as any SnapshotImportTarget, account: account, progress: progress, shouldStop: shouldStop)
    }

    /// Absorbs `offer` into `target`, as `absorb(_:into:account:progress:shouldStop:)`: a host
    /// passes a target that runs each import transaction on the actor owning its store, and
    /// runs this call (its fetch, checks and decryption) on a thread of its own.
    package nonisolated(nonsending) func absorb(_ offer: SyncOffer, into target: any SnapshotImportTarget, account: [UInt8],
                                                progress: @escaping (SnapshotProgress) -> Void = { _ in },
                                                shouldStop: @escaping () -> Bool = { false }) async -> SnapshotAbsorbResult {
        let started = ContinuousClock.now
        var report = SnapshotAbsorbReport()
        do {
            guard offer.size <= maxBlobBytes else { throw SyncKernelError(.limitExceeded, "an offered blob above this device's bound") }
            let cipher = try SnapshotCipher(algorithm: offer.algorithm, key: offer.key, nonce: offer.nonce)
            let spool = try SpoolFile(directory: spoolDirectory)
            func stopping() throws {
                guard !shouldStop() else { throw SyncKernelError(.snapshotStopped, "the absorb stopped with its device") }
            }
            try await fetch(offer, into: spool, report: &report, progress: progress, stopping: stopping)
            let verifying = ContinuousClock.now
            var check = SnapshotOpener(sealed: try spool.reader(), size: offer.size, cipher: cipher)
            while try check.next() != nil {
                try stopping()
                progress(SnapshotProgress(phase: .verifying, bytes: check.bytesRead, totalBytes: offer.size, rows: 0))
            }
            report.verifyTime = verifying.duration(to: .now)
            let opener = SnapshotOpener(sealed: try spool.reader(), size: offer.size, cipher: cipher)
            try await importAll(opener, size: offer.size, into: target, account: account, report: &report,
                                progress: progress, shouldStop: shouldStop)
        } catch {
            report.totalTime = started.duration(to: .now)
            return SnapshotAbsorbResult(ack: .failed(offer.requestID, SyncAck.Reason(error)), report: report, error: error)
        }
        report.totalTime = started.duration(to: .now)
        return SnapshotAbsorbResult(ack: .absorbed(offer.requestID), report: report, error: nil)
    }

    /// Imports every chunk `opener` yields, recording what the import read and changed in `report`
    /// whether it ends or fails.
    private nonisolated(nonsending) func importAll(_ opener: SnapshotOpener<FolderBlobReader>, size: Int64,
                                                   into target: any SnapshotImportTarget, account: [UInt8],
                                                   report: inout SnapshotAbsorbReport, progress: (SnapshotProgress) -> Void,
                                                   shouldStop: @escaping () -> Bool) async throws {
        let importing = ContinuousClock.now
        var opener = opener
        var importer = SnapshotImporter(target: target, account: account, rowsPerTransaction: rowsPerTransaction,
                                        shouldStop: shouldStop)
        defer {
            report.pages = importer.pages
            report.rows = importer.rows
            report.deletes = importer.deletes
            report.outcome = importer.outcome
            report.importTime = importing.duration(to: .now)
        }
        while let plaintext = try opener.next() {
            try await importer.consume(plaintext)
            progress(SnapshotProgress(phase: .importing, bytes: opener.bytesRead, totalBytes: size, rows: importer.rows))
        }
        _ = try await importer.finish()
    }

    /// Fetches the offered blob into `spool`, hashing it, and checks its size and SHA-256 against
    /// the offer's.
    private nonisolated(nonsending) func fetch(_ offer: SyncOffer, into spool: SpoolFile, report: inout SnapshotAbsorbReport,
                                               progress: (SnapshotProgress) -> Void, stopping: () throws -> Void) async throws {
        let started = ContinuousClock.now
        defer { report.downloadTime = started.duration(to: .now) }
        var reader = try await blobStore.open(offer.blobID)
        guard reader.size == offer.size else { throw SnapshotTransferError(.snapshotHashMismatch, "the stored blob's size is not the offer's") }
        var hash = StreamingSHA256()
        while let piece = try await reader.nextPiece() {
            try stopping()
            guard hash.count + Int64(piece.count) <= offer.size else {
                throw SnapshotTransferError(.snapshotHashMismatch, "the blob is longer than the offer's size")
            }
            hash.update(piece)
            try spool.append(piece)
            report.sealedBytes = hash.count
            progress(SnapshotProgress(phase: .downloading, bytes: hash.count, totalBytes: offer.size, rows: 0))
        }
        guard hash.count == offer.size, Sodium.constantTimeEqual(hash.finish(), offer.sha256) else {
            throw SnapshotTransferError(.snapshotHashMismatch, "the blob's SHA-256 or size is not the offer's")
        }
    }
}
