/// A key whose fill-if-empty fields held two different values on two devices, found by a merge.
///
/// Invariant: `fields` names the hashed fields (sorted, each once) whose merge settled two
/// different held values by its rule (the greater wins, so every device agrees) rather than by
/// the data: for messages, two devices disagreeing on a sender's identity, which is reported,
/// never settled silently.
public struct BackfillConflict: Sendable, Hashable {
    /// The row's key.
    public let key: [UInt8]
    /// The fields that held different values.
    public let fields: [String]

    /// A conflict on `key` over `fields`.
    public init(key: [UInt8], fields: [String]) {
        self.key = key
        self.fields = Array(Set(fields)).sorted()
    }
}
