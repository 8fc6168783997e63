import SyncKernel

/// Opens a sealed blob as it is read: yields the plaintext chunk by chunk, each only after it
/// authenticated.
///
/// Invariants: the chunk layout comes from the header and the blob's `size` (checked before any
/// chunk is read), so at most one sealed chunk (`SealedBlobFormat.maxChunkBytes` and its tag) and
/// one piece beyond it are held; a chunk that does not authenticate, a source that ends before
/// `size` bytes or yields more, throw `snapshotUnauthentic` and nothing of that chunk is yielded.
struct SnapshotOpener<Sealed: ByteSource>: ByteSource {
    private var sealed: Sealed
    private let size: Int64
    private let cipher: SnapshotCipher
    private var buffer: [UInt8] = []
    private var header: [UInt8]?
    private var layout: (chunks: Int64, lastBytes: Int, chunkBytes: Int)?
    private var index: Int64 = 0
    private var finished = false
    /// Sealed bytes read so far.
    private(set) var bytesRead: Int64 = 0

    /// An opener of the `size` bytes `sealed` yields, under `cipher`.
    init(sealed: Sealed, size: Int64, cipher: SnapshotCipher) {
        self.sealed = sealed
        self.size = size
        self.cipher = cipher
    }

    mutating func next() throws -> [UInt8]? {
        guard !finished else { return nil }
        if header == nil {
            try fill(SealedBlobFormat.headerBytes)
            let head = Array(buffer.prefix(SealedBlobFormat.headerBytes))
            buffer.removeFirst(SealedBlobFormat.headerBytes)
            let chunkBytes = try SealedBlobFormat.chunkBytes(ofHeader: head, algorithm: cipher.algorithm)
            let shape = try SealedBlobFormat.layout(size: size, chunkBytes: chunkBytes)
            header = head
            layout = (shape.chunks, shape.lastBytes, chunkBytes)
        }
        guard let header, let layout else { return nil }
        let last = index == layout.chunks - 1
        let want = last ? layout.lastBytes : layout.chunkBytes + SealingAlgorithm.tagBytes
        try fill(want)
        let data = SealedBlobFormat.associatedData(header: header, index: index, last: last)
        guard let plaintext = cipher.open(buffer[..<want], index: index, data: data) else {
            throw SnapshotTransferError(.snapshotUnauthentic, "a chunk does not authenticate")
        }
        buffer.removeFirst(want)
        index += 1
        if last {
            guard buffer.isEmpty, try sealed.next() == nil else { throw SnapshotTransferError(.snapshotUnauthentic, "bytes after the last chunk") }
            finished = true
        }
        return plaintext
    }

    /// Reads until the buffer holds `count` bytes; `snapshotUnauthentic` when the source ends
    /// first or yields more than `size` in all.
    private mutating func fill(_ count: Int) throws {
        while buffer.count < count {
            guard let piece = try sealed.next() else { throw SnapshotTransferError(.snapshotUnauthentic, "the blob ends early") }
            bytesRead += Int64(piece.count)
            guard bytesRead <= size else { throw SnapshotTransferError(.snapshotUnauthentic, "the blob is longer than its size") }
            buffer += piece
        }
    }
}
