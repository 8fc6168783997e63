/// One kept version of a key as `sk_version` stores it: the vector undecoded, so an entry that no
/// longer decodes can be told apart and quarantined.
///
/// Invariant: `row` is nil for a delete; `writer` is nil when unknown (a delete, a version from a
/// build that shipped none, or a stored writer that is not 32 bytes); `leaf` is the leaf hash of
/// a live version's row as stored beside it (nil for a delete, and for a version an earlier build
/// kept until the store fills it in at open).
package struct VersionEntry: Sendable, Hashable {
    /// The encoded vector of the write or delete.
    package let vector: [UInt8]
    /// The row of a live version, nil for a delete.
    package let row: [UInt8]?
    /// The device that wrote a live version, when known.
    package let writer: DeviceID?
    /// The stored leaf hash of a live version.
    package let leaf: [UInt8]?

    /// An entry as stored.
    package init(vector: [UInt8], row: [UInt8]?, writer: DeviceID?, leaf: [UInt8]?) {
        self.vector = vector
        self.row = row
        self.writer = writer
        self.leaf = leaf
    }
}
