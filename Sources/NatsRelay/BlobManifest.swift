import SnapshotTransfer
import SyncKernel

/// The last message of a blob in JetStream: its size, how it is cut, and the SHA-256 of every
/// chunk, hashed itself.
///
///     0     4   magic "SKBM"
///     4     1   version (1)
///     5     3   zero
///     8     8   blob size, big-endian
///     16    4   bytes per chunk (every chunk but the last), big-endian
///     20    4   chunk count, big-endian
///     24    32n SHA-256 of each chunk, in order
///     24+32n 32 SHA-256 of bytes 0 ..< 24+32n
///
/// Invariants: a manifest is published only after every chunk it names was acknowledged, so a
/// blob with a manifest is whole; the chunk count and sizes agree with the blob size (a manifest
/// whose numbers disagree, or whose own hash does not match, is refused with `blobStoreFailed`),
/// and the count is bounded by the message it fits in, checked before anything is allocated.
struct BlobManifest: Equatable {
    /// The magic.
    static let magic: [UInt8] = Array("SKBM".utf8)
    /// Bytes before the chunk hashes.
    static let headBytes = 24

    let size: Int64
    let chunkBytes: Int
    let chunkHashes: [[UInt8]]

    /// The most chunks a manifest of at most `messageBytes` names.
    static func maxChunks(messageBytes: Int) -> Int {
        max(0, (messageBytes - headBytes - SHA256.byteCount) / SHA256.byteCount)
    }

    /// The encoding.
    func encoded() -> [UInt8] {
        var bytes = BlobManifest.magic + [1, 0, 0, 0]
        bytes.reserveCapacity(BlobManifest.headBytes + 32 * (chunkHashes.count + 1))
        bytes.appendBigEndian(UInt64(size), width: 8)
        bytes.appendBigEndian(UInt64(chunkBytes), width: 4)
        bytes.appendBigEndian(UInt64(chunkHashes.count), width: 4)
        for hash in chunkHashes { bytes += hash }
        return bytes + BlobManifest.digest(bytes)
    }

    /// Decodes a manifest read back from the server; `blobStoreFailed` for anything but a whole,
    /// consistent manifest.
    init(decoding bytes: [UInt8]) throws {
        let bad = SnapshotTransferError(.blobStoreFailed, "a blob manifest that does not read")
        guard bytes.count >= BlobManifest.headBytes + SHA256.byteCount, Array(bytes.prefix(8)) == BlobManifest.magic + [1, 0, 0, 0] else {
            throw bad
        }
        func number(_ range: Range<Int>) -> UInt64 { bytes[range].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        let size = number(8..<16)
        let chunkBytes = Int(number(16..<20))
        let count = Int(number(20..<24))
        guard bytes.count == BlobManifest.headBytes + SHA256.byteCount * (count + 1), size <= UInt64(Int64.max), chunkBytes > 0,
              count == Int((size + UInt64(chunkBytes) - 1) / UInt64(chunkBytes)), size > 0 else { throw bad }
        let body = Array(bytes.dropLast(SHA256.byteCount))
        guard Array(bytes.suffix(SHA256.byteCount)) == BlobManifest.digest(body) else { throw bad }
        self.size = Int64(size)
        self.chunkBytes = chunkBytes
        chunkHashes = (0..<count).map { Array(bytes[(BlobManifest.headBytes + 32 * $0)..<(BlobManifest.headBytes + 32 * $0 + 32)]) }
    }

    /// A manifest of a blob of `size` bytes cut in `chunkBytes` with these chunk hashes.
    init(size: Int64, chunkBytes: Int, chunkHashes: [[UInt8]]) {
        self.size = size
        self.chunkBytes = chunkBytes
        self.chunkHashes = chunkHashes
    }

    /// The plain SHA-256 of `bytes`.
    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var hash = StreamingSHA256()
        hash.update(bytes)
        return hash.finish()
    }
}
