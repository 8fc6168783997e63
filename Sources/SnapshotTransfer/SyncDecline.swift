import SyncKernel

/// A sibling's answer that it will not send a snapshot now: a choice, not a failure (a failure
/// is `SyncBroken`), so the requester can tell "declined" from "broke".
///
/// Layout (23 bytes): head ("SKXF", version 1, kind 3), request id (16), reason (1).
///
/// Invariant: one encoding per value; a reason byte this build does not know is refused.
public struct SyncDecline: Sendable, Hashable {
    /// Why a sibling declines.
    public enum Reason: UInt8, Sendable, Hashable, CaseIterable {
        /// It is already exporting or uploading a snapshot.
        case busy = 1
        /// Its host does not serve snapshots now (a setting, a metered network, low power).
        case unwilling = 2
    }

    /// Bytes of the encoding.
    public static let byteCount = TransferFormat.headBytes + TransferFormat.requestIDBytes + 1

    /// The request answered.
    public let requestID: SyncRequestID
    /// Why.
    public let reason: Reason

    /// A decline of `requestID` for `reason`.
    public init(requestID: SyncRequestID, reason: Reason) {
        self.requestID = requestID
        self.reason = reason
    }

    /// The canonical encoding.
    public func encoded() -> [UInt8] {
        TransferFormat.head(.decline, requestID: requestID.bytes) + [reason.rawValue]
    }

    /// Decodes untrusted bytes, refusing anything but the canonical encoding of a decline:
    /// `unsupportedTransferMessage` (magic, version, kind), `truncatedInput`, `trailingBytes`,
    /// `limitExceeded` (too long), `nonCanonicalEncoding` (an unknown reason).
    public init(decoding bytes: [UInt8]) throws {
        var (reader, id) = try TransferFormat.open(bytes, expecting: .decline)
        let byte = try reader.byte()
        try reader.finish()
        guard let reason = Reason(rawValue: byte) else { throw SyncKernelError(.nonCanonicalEncoding, "a decline's reason") }
        self.init(requestID: SyncRequestID(checked: id), reason: reason)
    }
}
