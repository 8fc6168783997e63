import SyncEnvelope
import SyncKernel

/// A relay subject of the join protocol: an account's discovery subject, where its siblings
/// listen for sign-in requests, or a requester's one-off reply subject.
///
/// Invariants: a discovery subject is `synckernel.join.` and 32 lower-case hex digits, the first
/// 16 bytes of BLAKE2b of the account's discovery public key keyed with a fixed domain, so it is
/// stable for an account (siblings subscribe once) but names neither the account's userIDHash,
/// its issuer, its devices nor their inboxes, and the relay, which never sees the discovery key,
/// cannot compute it; a reply subject is `synckernel.join-reply.` and the 32 hex digits of 16
/// fresh random bytes the requester drew, so it is linked to nothing. Both hold only letters,
/// digits, `-` and dots.
public struct JoinSubject: Sendable, Hashable, CustomStringConvertible {
    /// What every discovery subject starts with.
    public static let discoveryPrefix = "synckernel.join."
    /// What every reply subject starts with.
    public static let replyPrefix = "synckernel.join-reply."
    /// Bytes of a reply token, and of the keyed hash in a discovery subject.
    package static let tokenBytes = 16
    /// The key of the hash that names a discovery subject (a domain, not a secret).
    private static let discoveryDomain = Array("synckernel.join.discovery-subject.v1".utf8)

    /// The subject.
    public let value: String

    private init(value: String) {
        self.value = value
    }

    /// The discovery subject of the account whose discovery public key is `publicKey`
    /// (32 bytes); nil for another size.
    package static func discovery(publicKey: [UInt8]) -> JoinSubject? {
        guard publicKey.count == Sodium.keyBytes,
              let hash = Sodium.keyedHash(publicKey, key: discoveryDomain, count: tokenBytes) else { return nil }
        return JoinSubject(value: discoveryPrefix + Hex.encode(hash))
    }

    /// The reply subject of the 16-byte token `token`; nil for another size.
    package static func reply(token: [UInt8]) -> JoinSubject? {
        guard token.count == tokenBytes else { return nil }
        return JoinSubject(value: replyPrefix + Hex.encode(token))
    }

    /// The subject itself.
    public var description: String { value }
}
