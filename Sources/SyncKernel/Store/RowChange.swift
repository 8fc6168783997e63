/// One committed change of a key, as the change feed reads it: the key's state now and where its
/// last change came from.
///
/// Invariant: `row` and `inConflict` are the key's state as of the read that returned the change
/// (a key changed twice is one change, numbered by the later one), so applying changes in
/// `cursor` order leaves a mirror equal to the store at the last one read.
public struct RowChange<Row: Sendable>: Sendable {
    /// The key.
    public let key: [UInt8]
    /// The row stored now; nil when the key holds none (deleted, or its row was set aside as
    /// damaged).
    public let row: Row?
    /// Whether the key keeps concurrent versions beside its row now (`NamespaceReader.conflictKeys`).
    public let inConflict: Bool
    /// Where the change came from.
    public let origin: ChangeOrigin
    /// The change's number: pass it as `after` to read the changes that follow it.
    public let cursor: UInt64

    /// A change of `key` numbered `cursor`.
    package init(key: [UInt8], row: Row?, inConflict: Bool, origin: ChangeOrigin, cursor: UInt64) {
        self.key = key
        self.row = row
        self.inConflict = inConflict
        self.origin = origin
        self.cursor = cursor
    }
}

extension RowChange: Equatable where Row: Equatable {}
