/// One stored row as the row table keeps it, read in one statement: the row's bytes, its leaf
/// hash, the change counter after its item last moved and its RowVersion's stored columns
/// (the writer among them).
///
/// Invariant: `leaf` is nil for a device-derived row (and for a row whose leaf is not stored
/// yet); `changed` is nil when unknown; `vector` is nil for a row with no RowVersion (a
/// device-derived row, a namespace that keeps none, a row not registered yet). The RowVersion is
/// decoded on demand (`version()`), so a record whose vector no longer decodes still reads and
/// can be quarantined whole.
struct StoredRecord {
    /// The row's canonical bytes.
    let row: [UInt8]
    /// The row's leaf hash, nil when it has none.
    let leaf: [UInt8]?
    /// The namespace's change counter right after the row's item last moved, nil when unknown.
    let changed: UInt64?
    /// The stored vector bytes of the row's RowVersion, nil when it has none.
    let vector: [UInt8]?
    /// The stored change stamp of the RowVersion.
    let syncedAt: Int64
    /// The stored content vector bytes (empty: equal to the vector).
    let contentVector: [UInt8]
    /// The device that wrote the visible content, when known.
    let writer: DeviceID?

    /// The row's RowVersion, nil when it has none; throws `corruptBookkeeping` when a stored
    /// vector does not decode.
    func version() throws(SyncKernelError) -> RowVersion? {
        guard let vector else { return nil }
        return try Bookkeeping.version(vector: vector, syncedAt: syncedAt, contentVector: contentVector, writer: writer)
    }
}
