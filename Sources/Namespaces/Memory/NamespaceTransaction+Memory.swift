import Foundation
import SyncKernel

extension NamespaceTransaction where N == MemoryNamespace {
    /// Appends an event; an id already present is refused, since events are immutable.
    public func append(_ event: MemoryEvent) throws(SyncKernelError) {
        guard try row(forKey: event.id) == nil else {
            throw SyncKernelError(.namespaceRefused, "memory events are immutable")
        }
        try save(event)
    }

    /// Replaces every device-derived event from `source` with `events` (the ingester's pass:
    /// it may re-mint ids freely, since none of these rows is hashed or synced).
    public func replaceDerived(source: String, with events: [MemoryEvent]) throws(SyncKernelError) {
        for event in try allRows() where event.origin == .deviceDerived(source: source) {
            try delete(key: event.id)
        }
        for var event in events {
            event.origin = .deviceDerived(source: source)
            try save(event)
        }
    }
}
