import Foundation

/// One JSON object as text, keys sorted: what the commands print with `--json`.
///
/// Invariant: the same object always prints the same bytes; an object `JSONSerialization`
/// cannot write prints `{}` rather than failing the command.
enum JSONText {
    /// `object` as JSON with sorted keys.
    static func of(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
