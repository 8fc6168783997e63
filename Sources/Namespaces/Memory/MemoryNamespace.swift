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
    public static let name = "memory"

    public static let schema = RowSchema<MemoryEvent>(
        blank: MemoryEvent(id: [], kind: .observation, text: "", occurredAt: .distantPast), key: \.id, [
            .hashed("id", \.id, .bytes(count: 16)),
            .hashed("kind", \.kind, MemoryEvent.Kind.codec),
            .hashed("text", \.text, .text),
            .hashed("occurredAt", \.occurredAt, .date),
            .excluded("origin", \.origin, MemoryEvent.Origin.codec, .deviceDerived,
                      reason: "marks events re-derived on every device from its own source (the calendar); syncing them made siblings resurrect deleted rows and mint duplicates"),
        ])

    public static let mergeRule = MergeRule<MemoryEvent>.insertIfAbsent

    /// Events whose origin is not `.synced` are device-derived.
    public static func isDeviceDerived(_ row: MemoryEvent) -> Bool { row.origin != .synced }

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
