import SyncKernel

/// The requester's last word on an offer: whether it absorbed the snapshot, and if not, why.
/// Informational for the sibling (it may then delete the blob early).
///
/// Layout (24 bytes): head ("SKXF", version 1, kind 5), request id (16), ok (1: 1 or 0), reason
/// (1: 0 exactly when ok).
///
/// Invariant: one encoding per value: `ok` with no reason, or not ok with a reason this build
/// knows.
public struct SyncAck: Sendable, Hashable {
    /// Why a snapshot was not absorbed.
    public enum Reason: UInt8, Sendable, Hashable, CaseIterable {
        /// The blob's bytes did not match the offer's SHA-256 or size (nothing decrypted).
        case hashMismatch = 1
        /// The blob matched its hash but did not authenticate under the offer's key.
        case unauthentic = 2
        /// The blob store had no such blob (never stored, deleted or expired).
        case blobUnavailable = 3
        /// Fetching the blob failed (the store or the network).
        case downloadFailed = 4
        /// The snapshot authenticated but is not the snapshot format.
        case malformedSnapshot = 5
        /// The snapshot was made under another schema or names another account.
        case schemaMismatch = 6
        /// The offer's size is above what this device accepts.
        case tooLarge = 7
        /// The offer's algorithm cannot run here.
        case unsupportedAlgorithm = 8
        /// Writing the rows failed (the store).
        case importFailed = 9

        /// The reason an absorb that failed with `error` acks with: the transfer's own reasons
        /// by their code, the kernel's decoding faults as a malformed snapshot, a schema or
        /// account mismatch and a bound passed as theirs, the kernel's other codes (the store)
        /// `importFailed`, and an error of no stable code (only a host's own `BlobStore` throws
        /// one) `downloadFailed`.
        public init(_ error: any Error) {
            if let error = error as? SnapshotTransferError {
                switch error.code {
                case .snapshotHashMismatch: self = .hashMismatch
                case .snapshotUnauthentic: self = .unauthentic
                case .blobNotFound: self = .blobUnavailable
                case .blobStoreFailed: self = .downloadFailed
                case .unsupportedAlgorithm: self = .unsupportedAlgorithm
                default: self = .malformedSnapshot
                }
                return
            }
            guard let error = error as? SyncKernelError else {
                self = .downloadFailed
                return
            }
            switch error.code {
            case .schemaMismatch, .foreignAccount: self = .schemaMismatch
            case .limitExceeded: self = .tooLarge
            case .malformedFrame, .truncatedInput, .nonCanonicalEncoding, .unsupportedEncoding, .trailingBytes, .invalidText,
                 .unexpectedType, .missingField, .duplicateMapKey, .unknownFrameKind, .unsupportedPayload, .unknownNamespace,
                 .counterOutOfRange:
                self = .malformedSnapshot
            default: self = .importFailed
            }
        }
    }

    /// Bytes of the encoding.
    public static let byteCount = TransferFormat.headBytes + TransferFormat.requestIDBytes + 2

    /// The request whose offer this answers.
    public let requestID: SyncRequestID
    /// Whether the snapshot was absorbed.
    public let ok: Bool
    /// Why not, when not ok; nil when ok.
    public let reason: Reason?

    /// The ack of an absorbed snapshot.
    public static func absorbed(_ requestID: SyncRequestID) -> SyncAck {
        SyncAck(requestID: requestID, ok: true, reason: nil)
    }

    /// The ack of a snapshot not absorbed, for `reason`.
    public static func failed(_ requestID: SyncRequestID, _ reason: Reason) -> SyncAck {
        SyncAck(requestID: requestID, ok: false, reason: reason)
    }

    private init(requestID: SyncRequestID, ok: Bool, reason: Reason?) {
        self.requestID = requestID
        self.ok = ok
        self.reason = reason
    }

    /// The canonical encoding.
    public func encoded() -> [UInt8] {
        TransferFormat.head(.ack, requestID: requestID.bytes) + [ok ? 1 : 0, reason?.rawValue ?? 0]
    }

    /// Decodes untrusted bytes, refusing anything but the canonical encoding of an ack:
    /// `unsupportedTransferMessage` (magic, version, kind), `truncatedInput`, `trailingBytes`,
    /// `limitExceeded` (too long), `nonCanonicalEncoding` (an ok byte other than 0 or 1, a reason
    /// with ok, none without, an unknown reason).
    public init(decoding bytes: [UInt8]) throws {
        var (reader, id) = try TransferFormat.open(bytes, expecting: .ack)
        let okByte = try reader.byte()
        let reasonByte = try reader.byte()
        try reader.finish()
        switch (okByte, reasonByte) {
        case (1, 0):
            self.init(requestID: SyncRequestID(checked: id), ok: true, reason: nil)
        case (0, let byte):
            guard let reason = Reason(rawValue: byte) else { throw SyncKernelError(.nonCanonicalEncoding, "an ack's reason") }
            self.init(requestID: SyncRequestID(checked: id), ok: false, reason: reason)
        default:
            throw SyncKernelError(.nonCanonicalEncoding, "an ack's ok and reason")
        }
    }
}
