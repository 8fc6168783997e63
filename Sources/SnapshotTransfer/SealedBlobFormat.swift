import SyncKernel

/// The layout of a sealed snapshot blob: a 12-byte header, then the plaintext cut into chunks of
/// `chunkBytes`, each sealed on its own (chunked AEAD, the STREAM construction).
///
///     header   0  4  magic "SKSB"
///              4  1  version (1)
///              5  1  algorithm (`SealingAlgorithm`)
///              6  2  zero
///              8  4  plaintext bytes per chunk, big-endian (`minChunkBytes` ... `maxChunkBytes`)
///     chunk i     ciphertext of plaintext bytes [i * chunkBytes, ...) and its 16-byte tag; every
///                 chunk holds `chunkBytes` of plaintext but the last, which holds 1 ... `chunkBytes`
///
/// Chunk i is sealed under the offer's key with the nonce `base nonce XOR i` (i big-endian in the
/// nonce's last 8 bytes) and the associated data `header ‖ i (8 bytes, big-endian) ‖ last`
/// (1 for the last chunk, 0 otherwise). So a chunk moved to another place, a chunk from another
/// blob, a changed header, a stream cut after any chunk but the last or extended after the last
/// one all fail to authenticate.
///
/// Invariants: the chunk boundaries follow from the header and the blob's size alone
/// (`layout(size:chunkBytes:)`), which is checked against the bounds before anything is read or
/// allocated; the plaintext is never empty (a snapshot always has its header record).
package enum SealedBlobFormat {
    /// The magic.
    package static let magic: [UInt8] = Array("SKSB".utf8)
    /// The format version.
    package static let version: UInt8 = 1
    /// Bytes of the header.
    package static let headerBytes = 12
    /// The fewest plaintext bytes per chunk a reader accepts.
    package static let minChunkBytes = 1_024
    /// The most plaintext bytes per chunk a reader accepts (and allocates for).
    package static let maxChunkBytes = 4 << 20
    /// The default plaintext bytes per chunk.
    package static let defaultChunkBytes = 1 << 20
    /// The smallest sealed blob: the header and one chunk of one byte.
    package static let minimumBytes = headerBytes + 1 + SealingAlgorithm.tagBytes

    /// The header of a blob sealed with `algorithm` in chunks of `chunkBytes`.
    static func header(algorithm: SealingAlgorithm, chunkBytes: Int) -> [UInt8] {
        var bytes = magic + [version, algorithm.rawValue, 0, 0]
        bytes.appendBigEndian(UInt64(chunkBytes), width: 4)
        return bytes
    }

    /// The chunk size a header names, after checking its magic, version, padding and that its
    /// algorithm is `algorithm` (the offer's); `snapshotUnauthentic` otherwise (a header is
    /// authenticated with every chunk, so one that differs from what the sealer wrote cannot open
    /// them anyway).
    static func chunkBytes(ofHeader header: [UInt8], algorithm: SealingAlgorithm) throws -> Int {
        guard header.count == headerBytes, Array(header.prefix(4)) == magic, header[4] == version,
              header[5] == algorithm.rawValue, header[6] == 0, header[7] == 0 else {
            throw SnapshotTransferError(.snapshotUnauthentic, "not a sealed snapshot header for the offer's algorithm")
        }
        let chunk = header[8..<12].reduce(0) { $0 << 8 | Int($1) }
        guard chunk >= minChunkBytes, chunk <= maxChunkBytes else {
            throw SnapshotTransferError(.snapshotUnauthentic, "a chunk size out of bounds")
        }
        return chunk
    }

    /// The number of chunks in a blob of `size` bytes sealed in chunks of `chunkBytes`, and the
    /// ciphertext bytes (tag included) of its last chunk; `snapshotUnauthentic` when no blob the
    /// sealer writes has that size.
    static func layout(size: Int64, chunkBytes: Int) throws -> (chunks: Int64, lastBytes: Int) {
        let body = size - Int64(headerBytes)
        let full = Int64(chunkBytes + SealingAlgorithm.tagBytes)
        guard body > Int64(SealingAlgorithm.tagBytes) else { throw SnapshotTransferError(.snapshotUnauthentic, "a blob without a chunk") }
        let chunks = (body + full - 1) / full
        let last = body - (chunks - 1) * full
        guard last > Int64(SealingAlgorithm.tagBytes) else { throw SnapshotTransferError(.snapshotUnauthentic, "an empty last chunk") }
        return (chunks, Int(last))
    }

    /// The nonce of chunk `index`: `base` with `index` XORed into its last 8 bytes, big-endian.
    static func nonce(_ base: [UInt8], index: Int64) -> [UInt8] {
        var nonce = base
        for position in 0..<8 {
            nonce[nonce.count - 1 - position] ^= UInt8(truncatingIfNeeded: UInt64(index) >> UInt64(8 * position))
        }
        return nonce
    }

    /// The associated data of chunk `index`: the header, the index (8 bytes, big-endian), and
    /// whether it is the last chunk.
    static func associatedData(header: [UInt8], index: Int64, last: Bool) -> [UInt8] {
        var data = header
        data.appendBigEndian(UInt64(index), width: 8)
        data.append(last ? 1 : 0)
        return data
    }
}
