import Foundation
import SyncKernel

/// blocks: users the account blocks; blocked and unblocked from any device.
///
/// Rule: `.causal`. Blocking is not monotone (users unblock), so a block and an unblock made on
/// two devices must be ordered by what each had seen, never by their clocks.
public enum BlocksNamespace: SyncNamespace {
    public typealias Row = BlockEntry

    public static let name = "blocks"
    public static let leafSchemaVersion = 1
    public static let excludedFields: [ExcludedField] = []
    public static let mergeRule: MergeRule<BlockEntry> = .causal
    public static let causalMembership: CausalMembership<BlockEntry> = .tracked { CanonicalWriter.wholeSeconds($0.updatedAt) }

    public static func key(of row: BlockEntry) -> [UInt8] { row.userIDHash }

    public static func encodeLeaf(_ row: BlockEntry, into writer: inout CanonicalWriter) {
        encodeRow(row, into: &writer)
    }

    public static func encodeRow(_ row: BlockEntry, into writer: inout CanonicalWriter) {
        writer.writeArrayHeader(count: 3)
        writer.write(bytes: row.userIDHash)
        writer.write(row.isBlocked)
        writer.write(row.updatedAt)
    }

    public static func decodeRow(_ value: CBORValue) throws(SyncKernelError) -> BlockEntry {
        let fields = try value.fields(3, of: "a block entry")
        return BlockEntry(userIDHash: try fields[0].bytes(), isBlocked: try fields[1].bool(), updatedAt: try fields[2].date())
    }
}
