import Foundation
import SyncKernel

/// Memory: an append-only event log.
///
/// Rule: `.insertIfAbsent`: an event is added when its id is new and otherwise ignored, with no
/// vector, tombstone or comparison. That is only sound because events are immutable: deletion
/// travels as a `.buried` event. Events re-derived on each device from a local source (a
/// calendar) are declared device-derived: they get no leaf, are never shipped, and are dropped if
/// a stale sibling ships one, so an ingester that re-mints ids cannot storm the log.
public enum MemoryNamespace: SyncNamespace {
    public typealias Row = MemoryEvent

    public static let name = "memory"
    public static let leafSchemaVersion = 1
    public static let excludedFields = [
        ExcludedField("origin == .deviceDerived", .deviceDerived,
                      reason: "re-derived on every device from its own source (the calendar); syncing them made siblings resurrect deleted rows and mint duplicates"),
    ]
    public static let mergeRule: MergeRule<MemoryEvent> = .insertIfAbsent
    public static let causalMembership: CausalMembership<MemoryEvent> = .untracked

    public static func key(of row: MemoryEvent) -> [UInt8] { row.id }

    public static func isDeviceDerived(_ row: MemoryEvent) -> Bool { row.origin != .synced }

    public static func encodeLeaf(_ row: MemoryEvent, into writer: inout CanonicalWriter) {
        writer.write(bytes: row.id)
        encodeKind(row.kind, into: &writer)
        writer.write(row.text)
        writer.write(row.occurredAt)
    }

    public static func encodeRow(_ row: MemoryEvent, into writer: inout CanonicalWriter) {
        writer.writeArrayHeader(count: 5)
        writer.write(bytes: row.id)
        encodeKind(row.kind, into: &writer)
        writer.write(row.text)
        writer.write(row.occurredAt)
        switch row.origin {
        case .synced: writer.writeNull()
        case .deviceDerived(let source): writer.write(source)
        }
    }

    public static func decodeRow(_ value: CBORValue) throws(SyncKernelError) -> MemoryEvent {
        let fields = try value.fields(5, of: "a memory event")
        let kindFields = try fields[1].array()
        guard let tag = kindFields.first else { throw SyncKernelError(.malformedFrame, "memory kind") }
        let kind: MemoryEvent.Kind
        switch (try tag.uint(), kindFields.count) {
        case (0, 1): kind = .observation
        case (1, 2): kind = .summary(conversation: try kindFields[1].bytes(count: 16))
        case (2, 2): kind = .buried(conversation: try kindFields[1].bytes(count: 16))
        default: throw SyncKernelError(.malformedFrame, "memory kind")
        }
        let origin: MemoryEvent.Origin = try fields[4].nullableText().map { .deviceDerived(source: $0) } ?? .synced
        return MemoryEvent(id: try fields[0].bytes(count: 16), kind: kind, text: try fields[2].text(),
                           occurredAt: try fields[3].date(), origin: origin)
    }

    private static func encodeKind(_ kind: MemoryEvent.Kind, into writer: inout CanonicalWriter) {
        switch kind {
        case .observation:
            writer.writeArrayHeader(count: 1)
            writer.write(UInt64(0))
        case .summary(let conversation):
            writer.writeArrayHeader(count: 2)
            writer.write(UInt64(1))
            writer.write(bytes: conversation)
        case .buried(let conversation):
            writer.writeArrayHeader(count: 2)
            writer.write(UInt64(2))
            writer.write(bytes: conversation)
        }
    }

    /// The events a reader sees: synced and derived alike, minus the conversations buried.
    public static func visible(_ events: [MemoryEvent]) -> [MemoryEvent] {
        var buried: Set<[UInt8]> = []
        for event in events {
            if case .buried(let conversation) = event.kind { buried.insert(conversation) }
        }
        return events.filter { event in
            switch event.kind {
            case .buried: return false
            case .summary(let conversation): return !buried.contains(conversation)
            case .observation: return true
            }
        }
    }
}
