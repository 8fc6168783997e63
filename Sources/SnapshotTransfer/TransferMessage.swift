import SyncEnvelope
import SyncKernel

/// Any one of the snapshot transfer's messages, as it travels inside a sealed envelope in place of
/// a `sync_delta` frame.
///
/// Invariants: `init(decoding:)` accepts exactly the canonical encodings of the five kinds and
/// `encoded()` gives them back; `accept(_:account:)` hands a message on only from an envelope the
/// gate accepted whose verified certificate names this device's own account, so a request or an
/// offer from another account is dropped before a byte of it is parsed.
public enum TransferMessage: Sendable, Hashable {
    /// A new device asks for a snapshot.
    case request(SyncRequest)
    /// A sibling offers one.
    case offer(SyncOffer)
    /// A sibling declines.
    case decline(SyncDecline)
    /// A sibling tried and failed.
    case broken(SyncBroken)
    /// The requester says how it went.
    case ack(SyncAck)

    /// The request the message belongs to.
    public var requestID: SyncRequestID {
        switch self {
        case .request(let request): request.requestID
        case .offer(let offer): offer.requestID
        case .decline(let decline): decline.requestID
        case .broken(let broken): broken.requestID
        case .ack(let ack): ack.requestID
        }
    }

    /// The canonical encoding.
    public func encoded() -> [UInt8] {
        switch self {
        case .request(let request): request.encoded()
        case .offer(let offer): offer.encoded()
        case .decline(let decline): decline.encoded()
        case .broken(let broken): broken.encoded()
        case .ack(let ack): ack.encoded()
        }
    }

    /// Decodes untrusted bytes as the kind their head names; `unsupportedTransferMessage` when
    /// they are not a transfer message of this build, otherwise that kind's refusals.
    public init(decoding bytes: [UInt8]) throws {
        guard let kind = TransferFormat.kind(of: bytes) else {
            if bytes.count > TransferFormat.maxMessageBytes { throw SyncKernelError(.limitExceeded, "a transfer message too long") }
            throw SnapshotTransferError(.unsupportedTransferMessage, "not a transfer message")
        }
        switch kind {
        case .request: self = .request(try SyncRequest(decoding: bytes))
        case .offer: self = .offer(try SyncOffer(decoding: bytes))
        case .decline: self = .decline(try SyncDecline(decoding: bytes))
        case .broken: self = .broken(try SyncBroken(decoding: bytes))
        case .ack: self = .ack(try SyncAck(decoding: bytes))
        }
    }

    /// Whether `frame` (the bytes an accepted envelope carried) starts as a transfer message,
    /// so a host routes it here rather than to its replica.
    public static func isTransferMessage(_ frame: [UInt8]) -> Bool {
        frame.count >= TransferFormat.headBytes && Array(frame.prefix(TransferFormat.magic.count)) == TransferFormat.magic
    }

    /// What a device does with an envelope `verdict` when the frame may be a transfer message:
    /// a dropped envelope stays dropped (its reason carried on), an accepted one is handed on
    /// only when the sender's verified certificate names `account` (this device's own
    /// userIDHash; compared in constant time) and its frame decodes as a transfer message.
    public static func accept(_ verdict: EnvelopeVerdict, account: [UInt8]) -> TransferVerdict {
        let opened: OpenedEnvelope
        switch verdict {
        case .dropped(let reason): return .dropped(.envelope(reason))
        case .accepted(let envelope): opened = envelope
        }
        guard account.count == SHA256.byteCount, opened.account.count == SHA256.byteCount,
              Sodium.constantTimeEqual(opened.account, account) else { return .dropped(.foreignAccount) }
        do {
            return .accepted(sender: opened.sender, message: try TransferMessage(decoding: opened.frame))
        } catch {
            return .dropped(.malformed(code: ErrorReport(error).code))
        }
    }
}
