/// A stored row the store cannot use: the visible row of a key, or one of the key's kept
/// concurrent versions (or delete versions), with the stored bytes and why.
///
/// Invariant: `vector` is nil exactly for the visible row (the row table's record, whose
/// RowVersion goes with it); for a kept version it is the version's stored vector bytes, which
/// name the entry, and `row` is empty for a delete version.
public struct DamagedRow: Sendable, Hashable {
    /// The namespace the row belongs to.
    public let namespace: String
    /// The key it is stored under.
    public let key: [UInt8]
    /// The stored row bytes, exactly as found.
    public let row: [UInt8]
    /// The stored vector bytes of a kept version; nil for the visible row.
    public let vector: [UInt8]?
    /// Why it cannot be used.
    public let reason: QuarantineReason

    /// A damaged row.
    public init(namespace: String, key: [UInt8], row: [UInt8], vector: [UInt8]? = nil, reason: QuarantineReason) {
        self.namespace = namespace
        self.key = key
        self.row = row
        self.vector = vector
        self.reason = reason
    }
}
