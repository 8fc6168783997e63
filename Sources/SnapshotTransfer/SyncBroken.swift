import SyncKernel

/// A sibling's answer that it tried to send a snapshot and failed: its export, sealing or upload
/// threw. Reported as such (never folded into a decline), with the failure's stable code.
///
/// Layout (28 bytes): head ("SKXF", version 1, kind 4), request id (16), stage (1), the
/// `SyncKernelError` code (5 ASCII bytes, "SK" and three digits).
///
/// Invariants: one encoding per value; the code is only the stable code string, never an
/// error's detail, so nothing of the sibling's data or paths travels.
public struct SyncBroken: Sendable, Hashable {
    /// Where the sibling's attempt failed.
    public enum Stage: UInt8, Sendable, Hashable, CaseIterable {
        /// Reading its store into the snapshot.
        case export = 1
        /// Sealing the snapshot.
        case seal = 2
        /// Storing the sealed blob in the blob store.
        case upload = 3
    }

    /// Bytes of the encoding.
    public static let byteCount = TransferFormat.headBytes + TransferFormat.requestIDBytes + 1 + 5

    /// The request answered.
    public let requestID: SyncRequestID
    /// The step that failed.
    public let stage: Stage
    /// The failure's stable code string ("SK501").
    public let code: String

    /// A report that `stage` failed with `code`; a code that is not "SK" and three digits throws
    /// `nonCanonicalEncoding`.
    public init(requestID: SyncRequestID, stage: Stage, code: String) throws {
        guard code.utf8.count == 5, code.hasPrefix("SK"), code.utf8.dropFirst(2).allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw SyncKernelError(.nonCanonicalEncoding, "a failure code is SK and three digits")
        }
        self.requestID = requestID
        self.stage = stage
        self.code = code
    }

    /// A report that `stage` failed with `error`: its stable code only (`StableError`). An error
    /// of no stable code can only come from a host's own `BlobStore` (no module of this package
    /// throws one) and is reported as `blobStoreFailed` (SK609).
    public init(requestID: SyncRequestID, stage: Stage, error: any Error) {
        self.requestID = requestID
        self.stage = stage
        let report = ErrorReport(error)
        code = report.code.utf8.count == 5 && report.code.hasPrefix("SK") ? report.code : SnapshotTransferError.Code.blobStoreFailed.rawValue
    }

    /// The canonical encoding.
    public func encoded() -> [UInt8] {
        TransferFormat.head(.broken, requestID: requestID.bytes) + [stage.rawValue] + Array(code.utf8)
    }

    /// Decodes untrusted bytes, refusing anything but the canonical encoding of a failure report:
    /// `unsupportedTransferMessage` (magic, version, kind), `truncatedInput`, `trailingBytes`,
    /// `limitExceeded` (too long), `nonCanonicalEncoding` (an unknown stage, a malformed code).
    public init(decoding bytes: [UInt8]) throws {
        var (reader, id) = try TransferFormat.open(bytes, expecting: .broken)
        let stageByte = try reader.byte()
        let code = try reader.read(5)
        try reader.finish()
        guard let stage = Stage(rawValue: stageByte) else { throw SyncKernelError(.nonCanonicalEncoding, "a failure's stage") }
        try self.init(requestID: SyncRequestID(checked: id), stage: stage, code: String(decoding: code, as: UTF8.self))
    }
}
