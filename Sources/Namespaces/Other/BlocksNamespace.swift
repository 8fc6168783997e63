import Foundation
import SyncKernel

/// blocks: users the account blocks; blocked and unblocked from any device.
///
/// Rule: `.causal`. Blocking is not monotone (users unblock), so a block and an unblock made on
/// two devices must be ordered by what each had seen, never by their clocks.
public enum BlocksNamespace: SyncNamespace {
    public static let name = "blocks"

    public static let schema = RowSchema<BlockEntry>(
        blank: BlockEntry(userIDHash: [], isBlocked: false, updatedAt: .distantPast), key: \.userIDHash, layout: .wholeRow, [
            .hashed("userIDHash", \.userIDHash, .bytes()),
            .hashed("isBlocked", \.isBlocked, .bool),
            .hashed("updatedAt", \.updatedAt, .date),
        ])

    public static let mergeRule = MergeRule<BlockEntry>.causal(changeStamp: \.updatedAt)
}
