import Foundation

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
