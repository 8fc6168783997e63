import Foundation
import SyncKernel

/// One key-transparency observation: a user's key as seen at an epoch of the transparency log.
///
/// Invariant: `entryHash` is SHA-256 of the observed content, so an entry is content-addressed
/// and two devices can never hold different content under one key.
public struct LedgerEntry: Sendable, Hashable {
    /// The observed user's account fingerprint.
    public var userIDHash: [UInt8]
    /// The observed key.
    public var pubkey: [UInt8]
    /// The transparency-log epoch of the observation.
    public var epoch: UInt64
    /// When this device made the observation (per device).
    public var observedAt: Date?

    /// Creates an entry, deriving its content hash.
    public init(userIDHash: [UInt8], pubkey: [UInt8], epoch: UInt64, observedAt: Date? = nil) {
        self.userIDHash = userIDHash
        self.pubkey = pubkey
        self.epoch = epoch
        self.observedAt = observedAt
    }

    /// The content hash, the stable key (derived from the content, so it always matches it).
    public var entryHash: [UInt8] { LedgerEntry.contentHash(userIDHash: userIDHash, pubkey: pubkey, epoch: epoch) }

    /// SHA-256 under `synckernel.kt.entry` of the canonical content.
    public static func contentHash(userIDHash: [UInt8], pubkey: [UInt8], epoch: UInt64) -> [UInt8] {
        var writer = CanonicalWriter()
        writer.write(bytes: userIDHash)
        writer.write(bytes: pubkey)
        writer.write(epoch)
        return SHA256.hash(domain: Array("synckernel.kt.entry".utf8), writer.bytes)
    }
}
