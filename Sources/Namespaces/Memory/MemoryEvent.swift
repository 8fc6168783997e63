import Foundation
import SyncKernel

/// One immutable event of the append-only memory log.
///
/// Invariant: an event never changes after it is appended; a deletion is another event
/// (`.buried`) naming what it buries. `origin` says whether the event is synced or re-derived on
/// each device from a local source.
public struct MemoryEvent: Sendable, Hashable {
    /// What an event records.
    public enum Kind: Sendable, Hashable {
        /// Something the account should remember.
        case observation
        /// A summary of a conversation.
        case summary(conversation: [UInt8])
        /// The conversation with this id is buried: its events are hidden from now on.
        case buried(conversation: [UInt8])
    }

    /// Where an event comes from.
    public enum Origin: Sendable, Hashable {
        /// Written by the account and synced to every device.
        case synced
        /// Re-derived on this device from a local source of truth (for example `calendar`).
        case deviceDerived(source: String)
    }

    /// The event's id (16 random bytes), its stable cross-device key.
    public var id: [UInt8]
    /// What the event records.
    public var kind: Kind
    /// The event's text.
    public var text: String
    /// When it happened, on the recording device's clock (information, never an order).
    public var occurredAt: Date
    /// Synced or device-derived.
    public var origin: Origin

    /// Creates an event.
    public init(id: [UInt8], kind: Kind, text: String, occurredAt: Date, origin: Origin = .synced) {
        self.id = id
        self.kind = kind
        self.text = text
        self.occurredAt = occurredAt
        self.origin = origin
    }
}

extension MemoryEvent.Kind {
    /// The wire form: `[0]`, `[1, conversation]` or `[2, conversation]`.
    public static let codec = FieldCodec<MemoryEvent.Kind>.custom("memoryKind", write: { kind, writer in
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
    }, read: { value throws(SyncKernelError) in
        let items = try value.array()
        switch (try items.first?.uint(), items.count) {
        case (0, 1): return .observation
        case (1, 2): return .summary(conversation: try items[1].bytes(count: 16))
        case (2, 2): return .buried(conversation: try items[1].bytes(count: 16))
        default: throw SyncKernelError(.malformedFrame, "memory kind")
        }
    })
}

extension MemoryEvent.Origin {
    /// The wire form: null for a synced event, the source's name for a device-derived one.
    public static let codec = FieldCodec<MemoryEvent.Origin>.custom("memoryOrigin", write: { origin, writer in
        switch origin {
        case .synced: writer.writeNull()
        case .deviceDerived(let source): writer.write(source)
        }
    }, read: { value throws(SyncKernelError) in
        value == .null ? .synced : .deviceDerived(source: try value.text())
    })
}
