import Foundation
import SyncKernel

/// blocks: users the account blocks; blocked and unblocked from any device.
///
/// Rule: `.causal`, the weakest rule that can state the policy. Blocking is not monotone (users
/// unblock), so no join fits; and a per-key edit counter (a `Register`) cannot tell an unblock
/// made after seeing a block from one made concurrently with it (the device that toggled more
/// often would win), so only version vectors can give the policy below its meaning.
///
/// Policy: a block or an unblock made after seeing the other wins, whatever the clocks say; a
/// block and an unblock made concurrently resolve to blocked, on every device (`incomingWinsTie`:
/// blocking is the protective act, and a user who blocked someone on one device must not find
/// them unblocked by a stale toggle on another). The unblock is not lost: it stays as the
/// concurrent version the conflict API shows (`KernelStore.versions`), until a later write
/// settles it. Between two versions that agree on `isBlocked`, the greater leaf encoding wins.
/// This is the order the default tie-break already gave (the row encoding holds the key, then
/// `isBlocked`, so `true` sorted above `false`): the hook states it as a decision and changes no
/// outcome, so the schema fingerprint stays.
public enum BlocksNamespace: SyncNamespace {
    public static let name = "blocks"

    public static let schema = RowSchema<BlockEntry>(
        blank: BlockEntry(userIDHash: [], isBlocked: false, updatedAt: .distantPast), key: \.userIDHash, layout: .wholeRow, [
            .hashed("userIDHash", \.userIDHash, .bytes()),
            .hashed("isBlocked", \.isBlocked, .bool),
            .hashed("updatedAt", \.updatedAt, .date),
        ])

    public static let mergeRule = MergeRule<BlockEntry>.causal(changeStamp: \.updatedAt)

    /// Blocked wins a concurrent block and unblock; otherwise the greater leaf encoding.
    public static func incomingWinsTie(_ incoming: BlockEntry, over local: BlockEntry) -> Bool {
        if incoming.isBlocked != local.isBlocked { return incoming.isBlocked }
        return leafEncoding(of: local).lexicographicallyPrecedes(leafEncoding(of: incoming))
    }
}
