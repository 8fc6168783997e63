/// Everything a store holds for one key of one namespace, as stored: the visible row with its leaf,
/// item and RowVersion, and every version kept beside it (concurrent live versions and deletes).
///
/// Invariants: read in one read-only transaction, undecoded (a damaged entry still shows); `item`
/// is what the namespace's structure holds for the key (`ConflictItem`: the leaf, or the conflict
/// item while live versions are kept beside the row; nil without a synced row); `versions` are in
/// vector order.
package struct StoredKey: Sendable {
    /// The key.
    package let key: [UInt8]
    /// The visible row's bytes, nil when none is stored (deleted, or never held).
    package let row: [UInt8]?
    /// The visible row's stored leaf hash, nil for none or a device-derived row.
    package let leaf: [UInt8]?
    /// The structure item of the key.
    package let item: [UInt8]?
    /// The stored vector of the visible row's RowVersion (encoded), nil when it has none.
    package let vector: [UInt8]?
    /// The stored content vector (encoded; empty when equal to `vector`).
    package let contentVector: [UInt8]
    /// The RowClock stamp last accounted for (`RowVersion.syncedAt`).
    package let syncedAt: Int64
    /// The device that wrote the visible content, when known.
    package let writer: DeviceID?
    /// The namespace's change counter after the row's item last moved, nil when unknown.
    package let changed: UInt64?
    /// The versions kept beside the row: live ones (in conflict) and deletes (tombstones).
    package let versions: [VersionEntry]
}
