import SyncKernel

/// A sibling's answer with a snapshot: where the sealed blob is, and what opens and checks it.
///
/// Layout (big-endian; 123 bytes with AES-256-GCM, 135 with XChaCha20-Poly1305):
///
///     0    6   head: "SKXF", version 1, kind 2
///     6    16  request id
///     22   16  blob id
///     38   1   algorithm (`SealingAlgorithm`)
///     39   32  key
///     71   n   base nonce (12 bytes for AES-256-GCM, 24 for XChaCha20-Poly1305)
///     71+n 32  SHA-256 of the whole sealed blob
///     103+n 8  the sealed blob's size in bytes
///
/// Invariants: one encoding per value; the nonce has its algorithm's length; the size is at
/// least the smallest sealed blob (`SealedBlobFormat.minimumBytes`) and at most `Int64.max`. The
/// offer travels only inside a sealed envelope: the key and the hash reach the requester by a
/// road the blob store never sees, and the hash is checked before anything is decrypted.
public struct SyncOffer: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The request answered.
    public let requestID: SyncRequestID
    /// The sealed blob's id in the blob store (the capability to fetch it).
    public let blobID: BlobID
    /// How the blob is sealed.
    public let algorithm: SealingAlgorithm
    /// The blob's fresh random key.
    public let key: [UInt8]
    /// The blob's fresh random base nonce.
    public let nonce: [UInt8]
    /// SHA-256 of the whole sealed blob.
    public let sha256: [UInt8]
    /// The sealed blob's size in bytes.
    public let size: Int64

    /// An offer; throws `limitExceeded` when the key, nonce or hash has the wrong length or the
    /// size is out of range.
    public init(requestID: SyncRequestID, blobID: BlobID, algorithm: SealingAlgorithm, key: [UInt8], nonce: [UInt8],
                sha256: [UInt8], size: Int64) throws {
        guard key.count == SealingAlgorithm.keyBytes, nonce.count == algorithm.nonceBytes, sha256.count == SHA256.byteCount,
              size >= Int64(SealedBlobFormat.minimumBytes) else {
            throw SyncKernelError(.limitExceeded, "an offer's key, nonce, hash or size")
        }
        self.requestID = requestID
        self.blobID = blobID
        self.algorithm = algorithm
        self.key = key
        self.nonce = nonce
        self.sha256 = sha256
        self.size = size
    }

    /// The canonical encoding.
    public func encoded() -> [UInt8] {
        var bytes = TransferFormat.head(.offer, requestID: requestID.bytes) + blobID.bytes
        bytes.append(algorithm.rawValue)
        bytes += key + nonce + sha256
        bytes.appendBigEndian(UInt64(size), width: 8)
        return bytes
    }

    /// Decodes untrusted bytes, refusing anything but the canonical encoding of an offer:
    /// `unsupportedTransferMessage` (magic, version, kind), `unsupportedAlgorithm`,
    /// `truncatedInput`, `trailingBytes`, `limitExceeded` (too long, a size out of range).
    public init(decoding bytes: [UInt8]) throws {
        var (reader, id) = try TransferFormat.open(bytes, expecting: .offer)
        let blob = try reader.read(BlobID.byteCount)
        guard let algorithm = SealingAlgorithm(rawValue: try reader.byte()) else {
            throw SnapshotTransferError(.unsupportedAlgorithm, "an offer's algorithm")
        }
        let key = try reader.read(SealingAlgorithm.keyBytes)
        let nonce = try reader.read(algorithm.nonceBytes)
        let hash = try reader.read(SHA256.byteCount)
        let size = try reader.unsigned(width: 8)
        try reader.finish()
        guard size <= UInt64(Int64.max) else { throw SyncKernelError(.limitExceeded, "an offer's size") }
        try self.init(requestID: SyncRequestID(checked: id), blobID: BlobID(checked: blob), algorithm: algorithm, key: key,
                      nonce: nonce, sha256: hash, size: Int64(size))
    }

    /// The request id, blob id, algorithm and size; never the key, the nonce or the hash.
    public var description: String {
        "SyncOffer(request: \(requestID), blob: \(blobID), \(algorithm), \(size) bytes, key redacted)"
    }

    /// The same as `description`.
    public var debugDescription: String { description }

    /// A mirror with no children, so `dump` and reflection show `description` only.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
