import SnapshotTransfer
import SyncKernel

/// Reads one blob of a `JetStreamBlobStore`, chunk by chunk, each checked against its manifest.
///
/// Invariants: yields the chunks in order, each only after its length (the manifest's chunk size,
/// the rest for the last) and SHA-256 matched the manifest (`blobStoreFailed` otherwise); a chunk
/// the server no longer has is `blobNotFound` (expired or deleted while read); exactly `size`
/// bytes in all.
final class JetStreamBlobReader: BlobReader {
    let size: Int64
    private let store: JetStreamBlobStore
    private let id: BlobID
    private let manifest: BlobManifest
    private var index = 0

    /// A reader of blob `id` of `store`, described by `manifest`.
    init(store: JetStreamBlobStore, id: BlobID, manifest: BlobManifest) {
        self.store = store
        self.id = id
        self.manifest = manifest
        size = manifest.size
    }

    nonisolated(nonsending) func nextPiece() async throws -> [UInt8]? {
        guard index < manifest.chunkHashes.count else { return nil }
        guard let chunk = try store.lastMessage(on: store.subject(id, chunk: index)) else {
            throw SnapshotTransferError(.blobNotFound, "a chunk of the blob is gone")
        }
        let last = index == manifest.chunkHashes.count - 1
        let expected = last ? Int(manifest.size - Int64(manifest.chunkBytes) * Int64(index)) : manifest.chunkBytes
        guard chunk.count == expected, BlobManifest.digest(chunk) == manifest.chunkHashes[index] else {
            throw SnapshotTransferError(.blobStoreFailed, "a chunk that does not match its manifest")
        }
        index += 1
        return chunk
    }
}
