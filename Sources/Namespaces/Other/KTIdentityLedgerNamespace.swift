import Foundation
import SyncKernel

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
