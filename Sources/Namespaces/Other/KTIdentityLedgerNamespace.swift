import Foundation
import SyncKernel

/// ktIdentityLedger: an append-only ledger of key-transparency observations.
///
/// Rule: `.insertIfAbsent`. Entries are facts about the log, content-addressed and immutable;
/// the weakest rule suffices and needs no history.
public enum KTIdentityLedgerNamespace: SyncNamespace {
    public static let name = "ktIdentityLedger"

    public static let schema = RowSchema<LedgerEntry>(
        blank: LedgerEntry(userIDHash: [], pubkey: [], epoch: 0), derivedKey: "entryHash", { $0.entryHash }, [
            .hashed("userIDHash", \.userIDHash, .bytes()),
            .hashed("pubkey", \.pubkey, .bytes()),
            .hashed("epoch", \.epoch, .uint64),
            .excluded("observedAt", \.observedAt, .optional(.date), .perDevice, reason: "each device observes the log at its own time"),
        ])

    public static let mergeRule = MergeRule<LedgerEntry>.insertIfAbsent
}
