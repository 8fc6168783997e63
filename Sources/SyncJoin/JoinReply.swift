import SyncEnvelope
import SyncKernel

/// A sibling's answer to a sign-in request, published on the request's reply subject: an
/// acknowledgement (the request reached a sibling, which is asking its user), a grant (approved),
/// a rejection (the user refused; it carries nothing) or a refusal (the sibling refused without
/// asking: the credential is spent, revoked or busy; one byte).
///
/// Outside (the bytes the relay carries): version 1, a 24-byte random nonce, then
/// `crypto_box_easy` (X25519, XSalsa20-Poly1305) of the inside from the account's discovery
/// secret key to the requester's ephemeral public key. Inside: the kind (1 ack, 2 grant,
/// 3 rejection, 4 refusal), the 16-byte request id, then the kind's body (`SignInAck`,
/// `SignInGrant`, nothing, the `SignInRefusal` byte).
///
/// Invariants: a reply opens only with the requester's ephemeral secret key and the account's
/// discovery public key, so one that opens was made by a device holding the account seed (and
/// a grant sealed to another request, or altered by one bit, does not open); opening checks the
/// size before decrypting and then reads exactly one layout (a reply of another request id is
/// told apart); outside the box only the version, the nonce and the length show.
public enum JoinReply: Sendable {
    /// The request passed the sibling's ladder and waits for its user's decision.
    case acknowledged(SignInAck)
    /// The sibling's user approved: everything the new device stores.
    case granted(SignInGrant)
    /// The sibling's user refused.
    case rejected
    /// The sibling refused without asking its user, for this reason.
    case refused(SignInRefusal)

    /// What opening a reply gave.
    package enum Opening: Sendable {
        /// The reply, for this request.
        case opened(JoinReply)
        /// Dropped, for this reason.
        case dropped(JoinReplyDropReason)
    }

    /// The outside's version.
    package static let version: UInt8 = 1
    /// The inside's fields before the body: kind and request id.
    private static let insideHeaderBytes = 1 + SignInRequest.requestIDBytes
    /// The outside's fields before the box.
    private static let outsideHeaderBytes = 1 + JoinCrypto.nonceBytes
    /// The shortest reply (a rejection).
    package static let minSealedBytes = outsideHeaderBytes + JoinCrypto.macBytes + insideHeaderBytes
    /// The longest reply (a grant with `SignInGrant.maxSiblings` siblings); anything longer is
    /// dropped before it is decrypted.
    package static let maxSealedBytes = minSealedBytes + SignInGrant.maxBytes

    /// The kind byte.
    private var kind: UInt8 {
        switch self {
        case .acknowledged: 1
        case .granted: 2
        case .rejected: 3
        case .refused: 4
        }
    }

    /// The inside's bytes for the request `requestID`.
    package func inside(requestID: [UInt8]) -> [UInt8] {
        let body: [UInt8]
        switch self {
        case .acknowledged(let ack): body = ack.encoded()
        case .granted(let grant): body = grant.encoded()
        case .rejected: body = []
        case .refused(let refusal): body = [refusal.rawValue]
        }
        return [kind] + requestID + body
    }

    /// The sealed reply to the request `requestID` whose ephemeral key is `ephemeralKey`, boxed
    /// with the discovery secret key under `nonce` (24 fresh random bytes); nil when a key or the
    /// nonce has the wrong size.
    package func sealed(requestID: [UInt8], to ephemeralKey: [UInt8], from discovery: DiscoveryKeys, nonce: [UInt8]) -> [UInt8]? {
        guard requestID.count == SignInRequest.requestIDBytes,
              let box = JoinCrypto.box(inside(requestID: requestID), nonce: nonce, to: ephemeralKey, from: discovery.secretKey) else {
            return nil
        }
        return [Self.version] + nonce + box
    }

    /// Opens `bytes` for the request `requestID`, with the requester's ephemeral secret key and
    /// the account's discovery public key.
    package static func open(_ bytes: [UInt8], requestID: [UInt8], discoveryKey: [UInt8], ephemeralSecret: [UInt8]) -> Opening {
        guard bytes.count >= minSealedBytes, bytes.count <= maxSealedBytes, bytes[0] == version else { return .dropped(.undecodable) }
        let nonce = Array(bytes[1..<outsideHeaderBytes])
        guard let inside = JoinCrypto.open(bytes[outsideHeaderBytes...], nonce: nonce, from: discoveryKey, to: ephemeralSecret) else {
            return .dropped(.unopenable)
        }
        let body = inside[insideHeaderBytes...]
        let reply: JoinReply
        switch inside[0] {
        case 1:
            guard let ack = SignInAck(parsing: body) else { return .dropped(.malformed) }
            reply = .acknowledged(ack)
        case 2:
            guard let grant = SignInGrant(parsing: body) else { return .dropped(.malformed) }
            reply = .granted(grant)
        case 3:
            guard body.isEmpty else { return .dropped(.malformed) }
            reply = .rejected
        case 4:
            guard body.count == 1, let refusal = SignInRefusal(rawValue: body[body.startIndex]) else { return .dropped(.malformed) }
            reply = .refused(refusal)
        default:
            return .dropped(.malformed)
        }
        guard Sodium.constantTimeEqual(Array(inside[1..<insideHeaderBytes]), requestID) else { return .dropped(.otherRequest) }
        return .opened(reply)
    }
}
