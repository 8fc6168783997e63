/// One stored row as the row table keeps it, read in one statement: the row's bytes, its leaf
/// hash, the change counter after its item last moved and its RowVersion.
///
/// Invariant: `leaf` is nil for a device-derived row (and for a row whose leaf is not stored
/// yet); `changed` is nil when unknown; `version` is nil for a row with no RowVersion (a
/// device-derived row, a namespace that keeps none, a row not registered yet).
struct StoredRecord {
    /// The row's canonical bytes.
    let row: [UInt8]
    /// The row's leaf hash, nil when it has none.
    let leaf: [UInt8]?
    /// The namespace's change counter right after the row's item last moved, nil when unknown.
    let changed: UInt64?
    /// The row's RowVersion, nil when it has none.
    let version: RowVersion?
}
