import CSodium
import SyncKernel

/// The id of a blob in a blob store: 16 random bytes, the capability to fetch the blob.
///
/// Invariants: always exactly 16 bytes; its text form (`hex`, 32 lowercase hex digits) is safe
/// as a file name or a NATS subject token, so no id can leave a store's folder or subject space.
public struct BlobID: Sendable, Hashable, CustomStringConvertible {
    /// Bytes of an id.
    public static let byteCount = 16

    /// The id's bytes.
    public let bytes: [UInt8]

    /// An id of `bytes`, which must be exactly 16 long (`limitExceeded` otherwise).
    public init(bytes: [UInt8]) throws {
        guard bytes.count == BlobID.byteCount else { throw SyncKernelError(.limitExceeded, "a blob id is 16 bytes") }
        self.bytes = bytes
    }

    /// The id of the 32 hex digits `hex`, nil for anything else.
    public init?(hex: String) {
        guard hex.utf8.count == 2 * BlobID.byteCount, let bytes = Hex.decode(hex), bytes.count == BlobID.byteCount else { return nil }
        self.bytes = bytes
    }

    /// An id of bytes already known to be 16 long.
    init(checked bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// A fresh id from the operating system's random bytes.
    public static func random() -> BlobID {
        precondition(SHA256.ready, "libsodium failed to initialise")
        var bytes = [UInt8](repeating: 0, count: byteCount)
        randombytes_buf(&bytes, bytes.count)
        return BlobID(checked: bytes)
    }

    /// The id as 32 lowercase hex digits.
    public var hex: String { Hex.encode(bytes) }

    /// The same as `hex`.
    public var description: String { hex }
}
