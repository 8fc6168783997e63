import SyncKernel

/// "What do I know?": a new device's request for a snapshot of a sibling's whole store.
///
/// Layout (63 bytes, big-endian):
///
///     0   6   head: "SKXF", version 1, kind 1
///     6   16  request id, the same on every re-send to every sibling
///     22  32  reply public key (X25519): the sender writes its return address inside, since a
///             sealed envelope carries none outside
///     54  8   timestamp, milliseconds since 1970 (0 ... Int64.max)
///     62  1   algorithms the requester opens: bit 0 XChaCha20-Poly1305 (always set), bit 1
///             AES-256-GCM; no other bit
///
/// Invariants: one encoding per value (`init(decoding:)` refuses every other byte string, and
/// `encoded()` of a decoded request gives back its bytes); the reply key is not all zero; the
/// accepted set always holds XChaCha20-Poly1305, so a sibling can always answer.
public struct SyncRequest: Sendable, Hashable {
    /// Bytes of the encoding.
    public static let byteCount = TransferFormat.headBytes + TransferFormat.requestIDBytes + 32 + 8 + 1

    /// The request's id.
    public let requestID: SyncRequestID
    /// Where the offer is to be sealed: the requester's X25519 public key.
    public let replyKey: [UInt8]
    /// When the requester made it, milliseconds since 1970.
    public let timestamp: Int64
    /// The sealing algorithms the requester can open.
    public let accepts: Set<SealingAlgorithm>

    /// A request; throws `limitExceeded` for a reply key that is not 32 bytes or a negative
    /// timestamp, `nonCanonicalEncoding` for an all-zero key. `accepts` always gains
    /// XChaCha20-Poly1305.
    public init(requestID: SyncRequestID, replyKey: [UInt8], timestamp: Int64,
                accepts: Set<SealingAlgorithm> = SealingAlgorithm.openable) throws {
        guard replyKey.count == 32, timestamp >= 0 else { throw SyncKernelError(.limitExceeded, "a request's reply key or timestamp") }
        guard replyKey.contains(where: { $0 != 0 }) else { throw SyncKernelError(.nonCanonicalEncoding, "an all-zero reply key") }
        self.requestID = requestID
        self.replyKey = replyKey
        self.timestamp = timestamp
        self.accepts = accepts.union([.xChaCha20Poly1305])
    }

    /// The canonical encoding.
    public func encoded() -> [UInt8] {
        var bytes = TransferFormat.head(.request, requestID: requestID.bytes) + replyKey
        bytes.appendBigEndian(UInt64(timestamp), width: 8)
        bytes.append(accepts.reduce(0) { $0 | $1.acceptBit })
        return bytes
    }

    /// Decodes untrusted bytes, refusing anything but the canonical encoding of a request:
    /// `limitExceeded` (too long, a timestamp above `Int64.max`), `unsupportedTransferMessage`
    /// (magic, version, kind), `truncatedInput`, `trailingBytes`, `nonCanonicalEncoding` (an
    /// all-zero key, an unknown or missing algorithm bit).
    public init(decoding bytes: [UInt8]) throws {
        var (reader, id) = try TransferFormat.open(bytes, expecting: .request)
        let key = try reader.read(32)
        let stamp = try reader.unsigned(width: 8)
        let bits = try reader.byte()
        try reader.finish()
        guard stamp <= UInt64(Int64.max) else { throw SyncKernelError(.limitExceeded, "a request timestamp") }
        let accepts = Set(SealingAlgorithm.allCases.filter { bits & $0.acceptBit != 0 })
        guard accepts.contains(.xChaCha20Poly1305), accepts.reduce(0, { $0 | $1.acceptBit }) == bits else {
            throw SyncKernelError(.nonCanonicalEncoding, "a request's algorithm set")
        }
        try self.init(requestID: SyncRequestID(checked: id), replyKey: key, timestamp: Int64(stamp), accepts: accepts)
    }
}
