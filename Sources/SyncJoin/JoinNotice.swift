import SyncEnvelope
import SyncKernel

/// A member's sealed notice to the other members, published on the account's discovery subject:
/// "I approved (or rejected) this request" (the others withdraw its prompt), or just "here is my
/// sign-in ledger". Every notice carries the sender's whole `SignInLedger`, so a spend or a
/// revocation reaches every member that hears any later notice of a member that knew it.
///
/// Outside: the tag 2 (a sign-in request starts with 1), a 24-byte random nonce, then
/// `crypto_box_easy` of the inside from the discovery secret key to the discovery public key
/// (both the account's: only a holder of the account seed makes or opens one). Inside,
/// big-endian: version 1, the kind (1 approved, 2 rejected, 3 ledger), the request id (16 bytes,
/// zero for a ledger notice), the sender's name length (1 to 64) and name, then the ledger body.
///
/// Invariants: opening checks the size before decrypting and then reads exactly one layout
/// (nothing else opens: another tag, version, kind or name, a ledger that does not parse,
/// trailing bytes); a notice opens only with the account's discovery key pair, so a stranger
/// (holding a credential, which names only the discovery public key) can neither make nor read
/// one; outside only the tag, the nonce and the length show.
public struct JoinNotice: Sendable, Hashable {
    /// What the notice says.
    public enum Kind: UInt8, Sendable, Hashable {
        /// The sender's user approved the request `requestID`.
        case approved = 1
        /// The sender's user rejected it.
        case rejected = 2
        /// Only the ledger (on connecting, or to answer a member that knew less).
        case ledger = 3
    }

    /// The first byte of every sealed notice.
    package static let tag: UInt8 = 2
    /// The inside's version.
    private static let version: UInt8 = 1
    /// The inside's fields before the name.
    private static let headerBytes = 2 + SignInRequest.requestIDBytes
    /// The outside's fields before the box.
    private static let outsideHeaderBytes = 1 + JoinCrypto.nonceBytes
    /// The longest sealed notice; anything longer is dropped before it is decrypted.
    package static let maxSealedBytes = outsideHeaderBytes + JoinCrypto.macBytes + headerBytes + 1 + 64 + SignInLedger.maxBytes

    /// What the notice says.
    public let kind: Kind
    /// The request decided (16 zero bytes for a ledger notice).
    public let requestID: [UInt8]
    /// The sending device's name.
    public let sender: String
    /// The sender's ledger.
    public let ledger: SignInLedger

    /// A notice from its parts; nil for a request id that is not 16 bytes or a name that is
    /// not a device name.
    public init?(kind: Kind, requestID: [UInt8], sender: String, ledger: SignInLedger) {
        guard requestID.count == SignInRequest.requestIDBytes, AccountDirectory.isValidDeviceName(sender) else { return nil }
        self.kind = kind
        self.requestID = requestID
        self.sender = sender
        self.ledger = ledger
    }

    /// The inside's bytes.
    package func inside() -> [UInt8] {
        [Self.version, kind.rawValue] + requestID + [UInt8(sender.utf8.count)] + Array(sender.utf8) + ledger.encoded()
    }

    /// The sealed notice, boxed under `nonce` (24 fresh random bytes); nil for a nonce of
    /// another size.
    package func sealed(with discovery: DiscoveryKeys, nonce: [UInt8]) -> [UInt8]? {
        guard let box = JoinCrypto.box(inside(), nonce: nonce, to: discovery.publicKey, from: discovery.secretKey) else { return nil }
        return [Self.tag] + nonce + box
    }

    /// Opens a sealed notice with the account's discovery keys; nil when it is not one.
    package static func open(_ bytes: [UInt8], with discovery: DiscoveryKeys) -> JoinNotice? {
        guard bytes.count > outsideHeaderBytes + JoinCrypto.macBytes, bytes.count <= maxSealedBytes, bytes[0] == tag,
              let inside = JoinCrypto.open(bytes[outsideHeaderBytes...], nonce: Array(bytes[1..<outsideHeaderBytes]),
                                           from: discovery.publicKey, to: discovery.secretKey),
              inside.count > headerBytes, inside[0] == version, let kind = Kind(rawValue: inside[1]) else { return nil }
        let nameLength = Int(inside[headerBytes])
        let nameEnd = headerBytes + 1 + nameLength
        guard inside.count >= nameEnd, let ledger = SignInLedger(parsing: inside[nameEnd...]) else { return nil }
        let name = String(decoding: inside[(headerBytes + 1)..<nameEnd], as: UTF8.self)
        let requestID = Array(inside[2..<headerBytes])
        guard kind != .ledger || requestID.allSatisfy({ $0 == 0 }) else { return nil }
        return JoinNotice(kind: kind, requestID: requestID, sender: name, ledger: ledger)
    }
}
