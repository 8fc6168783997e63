import Foundation

/// One JSON object on one line, keys sorted, for the status and event output.
///
/// Invariant: the same object always gives the same bytes (sorted keys, no pretty printing, no
/// escaped slashes); an object `JSONSerialization` refuses gives `{}`, never a crash.
package enum JSONLine {
    /// `object` as one line of JSON.
    package static func encode(_ object: [String: Any]) -> String {
        guard JSONSerialization.isValidJSONObject(object),
              let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
