/// Spots local edits of causally tracked rows and keeps their RowVersion bookkeeping.
///
/// Invariants: a key new to this device (no version, no delete) starts at its creation vector,
/// `{DeviceID.creation(key, leaf): 1}`, named by what was created rather than by who created it, so two
/// devices that create the same content independently made one write (an importer that runs on
/// every device, a row derived from shared input), and a later delete of it dominates every
/// copy. A local save then bumps the device's own dimension exactly when its change stamp
/// differs from the recorded `syncedAt` (inequality only, so a skewed clock still registers a
/// change and never orders anything) or its leaf changed; the
/// bumped vector extends everything the key's versions had seen, so a local edit or delete
/// supersedes every concurrent sibling this device holds. An applied merge records the
/// post-merge stamp so an adopted row is not mistaken for a local edit; a namespace seen for the
/// first time registers its existing rows with an empty vector, which every fleet history
/// dominates. Only `KernelStore` calls it, inside the write's transaction. It changes a key's
/// kept versions through the transaction's `RowWriter` without moving the key's item: the caller
/// read the item before and completes the change (`put`, `remove`).
struct RowClock {
    let writer: RowWriter
    let clock: DeviceClock

    private var books: Bookkeeping { writer.books }

    /// Accounts for a local save of the row `key`, whose stored RowVersion is `version`, and
    /// whose change stamp is now `stamp`;
    /// `leafChanged` says whether the save changed the row's leaf. Returns the RowVersion to
    /// store with the row (the caller writes both in one statement), or nil when the save is no
    /// edit and the stored version stands (with a RowVersion returned the key keeps no other
    /// version: the edit superseded and removed them all, so its item is its leaf), and whether
    /// the save resolved an open conflict (the
    /// key held a live version of another leaf beside the visible one, which the edit now supersedes).
    ///
    /// A changed stamp is an edit (the spec's rule, inequality only). A changed leaf under an
    /// unchanged stamp is an edit too: two saves inside one second of a coarse clock, or a device
    /// whose clock happens to read the stamp it adopted, must still advance the vector, or the
    /// edit would tie with the version it replaced and could lose to it. With `force` (a resolve)
    /// the save is an edit whatever its stamp and leaf. The edit is written by this device
    /// (`RowVersion.writer`).
    func observe(_ namespace: String, key: [UInt8], version: RowVersion?, stamp: Int64, leaf: [UInt8],
                 leafChanged: Bool, force: Bool = false) throws(SyncKernelError) -> (version: RowVersion?, resolved: Bool) {
        if let version, version.syncedAt == stamp, !leafChanged, !force { return (nil, false) }
        let entries = try books.versionEntries(namespace, key)
        let others = try Bookkeeping.versions(of: entries)
        let resolved = try books.isInConflict(namespace, key, entries: entries)
        let seen = others.reduce(version?.vector ?? VersionVector()) { $0.merged(with: $1.vector) }
        guard clock.device != nil else { throw SyncKernelError(.deviceIdentityNotConfigured) }
        let bumped = seen.isEmpty && version == nil
            ? VersionVector([DeviceID.creation(key: key, leaf: leaf): 1])
            : try clock.bump(seen)
        if !others.isEmpty { try writer.replaceVersions(namespace, key, with: []) }
        return (RowVersion(vector: bumped, syncedAt: stamp, writer: clock.device), resolved)
    }

    /// Accounts for a local delete: one delete version that extends everything the key had seen.
    /// Returns whether it resolved an open conflict (the key held a live version of another leaf
    /// beside the visible one).
    func observeDelete(_ namespace: String, key: [UInt8]) throws(SyncKernelError) -> Bool {
        let entries = try books.versionEntries(namespace, key)
        let others = try Bookkeeping.versions(of: entries)
        let resolved = try books.isInConflict(namespace, key, entries: entries)
        let seen = others.reduce(try books.version(namespace, key)?.vector ?? VersionVector()) { $0.merged(with: $1.vector) }
        let bumped = try clock.bump(seen)
        try books.removeVersion(namespace, key)
        try writer.replaceVersions(namespace, key, with: [StoredVersion(vector: bumped, row: nil)])
        return resolved
    }

    /// Records the outcome of a merge apply: everything merged, the vector the visible content
    /// came from, the stamp of the stored row and the device that wrote the content.
    func record(_ namespace: String, key: [UInt8], vector: VersionVector, contentVector: VersionVector,
                syncedAt: Int64, writer: DeviceID?) throws(SyncKernelError) {
        try books.putVersion(namespace, key, RowVersion(vector: vector, syncedAt: syncedAt, contentVector: contentVector, writer: writer))
    }

    /// Registers every stored row of a namespace that has no bookkeeping yet with an empty vector.
    func registerIfFirstSeen(_ namespace: String, rows: [InspectedRow]) throws(SyncKernelError) {
        guard try !books.hasVersions(namespace) else { return }
        for row in rows where !row.isDeviceDerived {
            try books.putVersion(namespace, row.key, RowVersion(vector: VersionVector(), syncedAt: row.stamp ?? 0))
        }
    }
}
