import Foundation
import SyncKernel

/// One key-transparency observation: a user's key as seen at an epoch of the transparency log.
///
/// Invariant: `entryHash` is SHA-256 of the observed content, so an entry is content-addressed
/// and two devices can never hold different content under one key.
public struct LedgerEntry: Sendable, Hashable {
    /// The content hash, the stable key.
    public let entryHash: [UInt8]
    /// The observed user's account fingerprint.
    public let userIDHash: [UInt8]
    /// The observed key.
    public let pubkey: [UInt8]
    /// The transparency-log epoch of the observation.
    public let epoch: UInt64
    /// When this device made the observation (per device).
    public var observedAt: Date?

    /// Creates an entry, deriving its content hash.
    public init(userIDHash: [UInt8], pubkey: [UInt8], epoch: UInt64, observedAt: Date? = nil) {
        self.userIDHash = userIDHash
        self.pubkey = pubkey
        self.epoch = epoch
        self.observedAt = observedAt
        entryHash = LedgerEntry.contentHash(userIDHash: userIDHash, pubkey: pubkey, epoch: epoch)
    }

    /// SHA-256 under `synckernel.kt.entry` of the canonical content.
    public static func contentHash(userIDHash: [UInt8], pubkey: [UInt8], epoch: UInt64) -> [UInt8] {
        var writer = CanonicalWriter()
        writer.write(bytes: userIDHash)
        writer.write(bytes: pubkey)
        writer.write(epoch)
        return SHA256.hash(domain: Array("synckernel.kt.entry".utf8), writer.bytes)
    }
}

/// ktIdentityLedger: an append-only ledger of key-transparency observations.
///
/// Rule: `.insertIfAbsent`. Entries are facts about the log, content-addressed and immutable;
/// the weakest rule suffices and needs no history.
public enum KTIdentityLedgerNamespace: SyncNamespace {
    public typealias Row = LedgerEntry

    public static let name = "ktIdentityLedger"
    public static let leafSchemaVersion = 1
    public static let excludedFields = [
        ExcludedField("observedAt", .perDevice, reason: "each device observes the log at its own time"),
    ]
    public static let mergeRule: MergeRule<LedgerEntry> = .insertIfAbsent
    public static let causalMembership: CausalMembership<LedgerEntry> = .untracked

    public static func key(of row: LedgerEntry) -> [UInt8] { row.entryHash }

    public static func encodeLeaf(_ row: LedgerEntry, into writer: inout CanonicalWriter) {
        writer.write(bytes: row.userIDHash)
        writer.write(bytes: row.pubkey)
        writer.write(row.epoch)
    }

    public static func encodeRow(_ row: LedgerEntry, into writer: inout CanonicalWriter) {
        writer.writeArrayHeader(count: 4)
        writer.write(bytes: row.userIDHash)
        writer.write(bytes: row.pubkey)
        writer.write(row.epoch)
        writer.writeNullable(row.observedAt)
    }

    public static func decodeRow(_ value: CBORValue) throws(SyncKernelError) -> LedgerEntry {
        let fields = try value.fields(4, of: "a ledger entry")
        return LedgerEntry(userIDHash: try fields[0].bytes(), pubkey: try fields[1].bytes(), epoch: try fields[2].uint(),
                           observedAt: try fields[3].nullableDate())
    }

    /// A newly inserted entry keeps no other device's observation time.
    public static func adopt(_ incoming: LedgerEntry, over local: LedgerEntry?) -> LedgerEntry {
        var entry = incoming
        entry.observedAt = local?.observedAt
        return entry
    }
}
