import Foundation
import SyncDevice

/// An event's JSON fields as the words of a log line: `key value, key value`, the one form every
/// log line of `synckernel device` that shows fields uses.
///
/// Invariant: built from the event's JSON object only (`SyncDeviceEvent.jsonObject()`: stable
/// names, codes, ids and numbers, never a Swift rendering of a value); a text value is shown as
/// it is, a null not at all, any other as its JSON.
enum EventFields {
    /// The fields `keys` of `event` that it has, in that order; every field but `event`, in key
    /// order, when `keys` is nil.
    static func text(_ event: SyncDeviceEvent, keys: [String]? = nil) -> String {
        let object = event.jsonObject()
        let chosen = keys ?? object.keys.filter { $0 != "event" }.sorted()
        return chosen.compactMap { key in
            guard let value = object[key], !(value is NSNull) else { return nil }
            if let text = value as? String { return "\(key) \(text)" }
            guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]) else {
                return nil
            }
            return "\(key) \(String(decoding: data, as: UTF8.self))"
        }.joined(separator: ", ")
    }
}
