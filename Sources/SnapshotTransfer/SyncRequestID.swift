import CSodium
import SyncKernel

/// The 16-byte id of one snapshot request: drawn once by the requester and reused on every
/// re-send to every sibling, so an offer maps back to its request and repeats deduplicate.
///
/// Invariant: always exactly 16 bytes.
public struct SyncRequestID: Sendable, Hashable, CustomStringConvertible {
    /// The id's bytes.
    public let bytes: [UInt8]

    /// An id of `bytes`, which must be exactly 16 long (`limitExceeded` otherwise).
    public init(bytes: [UInt8]) throws {
        guard bytes.count == TransferFormat.requestIDBytes else { throw SyncKernelError(.limitExceeded, "a request id is 16 bytes") }
        self.bytes = bytes
    }

    /// A fresh id from the operating system's random bytes.
    public static func random() -> SyncRequestID {
        precondition(SHA256.ready, "libsodium failed to initialise")
        var bytes = [UInt8](repeating: 0, count: TransferFormat.requestIDBytes)
        randombytes_buf(&bytes, bytes.count)
        return SyncRequestID(checked: bytes)
    }

    /// An id of bytes already known to be 16 long.
    init(checked bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The id in hex.
    public var description: String { Hex.encode(bytes) }
}
