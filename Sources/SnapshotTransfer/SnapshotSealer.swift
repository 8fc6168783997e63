import SyncKernel

/// Seals a plaintext stream as it is read: yields the sealed blob (`SealedBlobFormat`) piece by
/// piece, the header first, then one sealed chunk per piece, hashing every byte it yields.
///
/// Invariants: holds at most one chunk and one plaintext piece beyond it, so memory does not grow
/// with the snapshot; a chunk is sealed as the last only once the plaintext ended, so the last
/// flag is exact; after the end, `sha256` and `size` are the hash and length of exactly the bytes
/// yielded. A failure of the plaintext source is kept in `sourceFailure` and one of the sealing
/// in `sealFailure` (so a caller tells an export failure from a sealing one, and both from the
/// store's), and rethrown.
struct SnapshotSealer<Plaintext: ByteSource>: ByteSource {
    private var plaintext: Plaintext
    private let cipher: SnapshotCipher
    private let header: [UInt8]
    private let chunkBytes: Int
    private var buffer: [UInt8] = []
    private var index: Int64 = 0
    private var headerSent = false
    private var sourceEnded = false
    private var finished = false
    private var hash = StreamingSHA256()
    /// SHA-256 of the bytes yielded, once the blob ended.
    private(set) var sha256: [UInt8]?
    /// Bytes yielded so far.
    private(set) var size: Int64 = 0
    /// The plaintext source's error, if it threw.
    private(set) var sourceFailure: (any Error)?
    /// The sealing's own error, if it threw.
    private(set) var sealFailure: (any Error)?
    /// Time spent sealing and hashing (not reading the plaintext).
    private(set) var sealTime: Duration = .zero

    /// A sealer of `plaintext` under `cipher`, in chunks of `chunkBytes` (within the format's bounds).
    init(plaintext: Plaintext, cipher: SnapshotCipher, chunkBytes: Int) throws {
        guard chunkBytes >= SealedBlobFormat.minChunkBytes, chunkBytes <= SealedBlobFormat.maxChunkBytes else {
            throw SyncKernelError(.limitExceeded, "a chunk size out of bounds")
        }
        self.plaintext = plaintext
        self.cipher = cipher
        self.chunkBytes = chunkBytes
        header = SealedBlobFormat.header(algorithm: cipher.algorithm, chunkBytes: chunkBytes)
    }

    /// The source being sealed (its counters, once the blob ended).
    var source: Plaintext { plaintext }

    mutating func next() throws -> [UInt8]? {
        guard !finished else { return nil }
        guard headerSent else {
            headerSent = true
            return emit(header)
        }
        while !sourceEnded && buffer.count <= chunkBytes {
            do {
                if let piece = try plaintext.next() { buffer += piece } else { sourceEnded = true }
            } catch {
                sourceFailure = error
                throw error
            }
        }
        let started = ContinuousClock.now
        defer { sealTime += started.duration(to: .now) }
        let last = sourceEnded && buffer.count <= chunkBytes
        let take = min(chunkBytes, buffer.count)
        let sealed: [UInt8]
        do {
            guard take > 0 else { throw SnapshotTransferError(.malformedSnapshot, "an empty snapshot") }
            let data = SealedBlobFormat.associatedData(header: header, index: index, last: last)
            sealed = try cipher.seal(buffer[..<take], index: index, data: data)
        } catch {
            sealFailure = error
            throw error
        }
        buffer.removeFirst(take)
        index += 1
        if last {
            finished = true
            hash.update(sealed)
            size += Int64(sealed.count)
            sha256 = hash.finish()
            return sealed
        }
        return emit(sealed)
    }

    /// Hashes and counts `bytes` and returns them.
    private mutating func emit(_ bytes: [UInt8]) -> [UInt8] {
        hash.update(bytes)
        size += Int64(bytes.count)
        return bytes
    }
}
