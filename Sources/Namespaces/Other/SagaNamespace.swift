import Foundation
import SyncKernel

/// saga: a user-edited document, edited on any device.
///
/// Rule: `.causal`. Two devices may rewrite the same saga; only version vectors can say which
/// rewrite had seen the other, and a concurrent pair resolves the same way everywhere.
public enum SagaNamespace: SyncNamespace {
    public typealias Row = SagaEntry

    public static let name = "saga"
    public static let leafSchemaVersion = 1
    public static let excludedFields: [ExcludedField] = []
    public static let mergeRule: MergeRule<SagaEntry> = .causal
    public static let causalMembership: CausalMembership<SagaEntry> = .tracked { CanonicalWriter.wholeSeconds($0.updatedAt) }

    public static func key(of row: SagaEntry) -> [UInt8] { row.id }

    public static func encodeLeaf(_ row: SagaEntry, into writer: inout CanonicalWriter) {
        encodeRow(row, into: &writer)
    }

    public static func encodeRow(_ row: SagaEntry, into writer: inout CanonicalWriter) {
        writer.writeArrayHeader(count: 4)
        writer.write(bytes: row.id)
        writer.write(row.title)
        writer.write(texts: row.chapters)
        writer.write(row.updatedAt)
    }

    public static func decodeRow(_ value: CBORValue) throws(SyncKernelError) -> SagaEntry {
        let fields = try value.fields(4, of: "a saga")
        return SagaEntry(id: try fields[0].bytes(count: 16), title: try fields[1].text(), chapters: try fields[2].texts(),
                         updatedAt: try fields[3].date())
    }
}
