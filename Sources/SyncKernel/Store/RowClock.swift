/// Spots local edits of causally tracked rows and keeps their RowVersion bookkeeping.
///
/// Invariants: a local save bumps the device's own dimension exactly when the row is new to
/// this device or its change stamp differs from the recorded `syncedAt` (inequality only, so a
/// skewed clock still registers a change and never orders anything); an applied merge records
/// the post-merge stamp so an adopted row is not mistaken for a local edit; a namespace seen for
/// the first time registers its existing rows with an empty vector, which every fleet history
/// dominates. Only `KernelStore` calls it, inside the write's transaction.
struct RowClock {
    let books: Bookkeeping
    let clock: DeviceClock

    /// Accounts for a local save of the row `key` whose change stamp is now `stamp`.
    func observe(_ namespace: String, key: [UInt8], stamp: Int64) throws(SyncKernelError) {
        if var version = try books.version(namespace, key) {
            guard version.syncedAt != stamp else { return }
            version.vector = try clock.bump(version.vector)
            version.syncedAt = stamp
            try books.putVersion(namespace, key, version)
        } else if let tombstone = try books.tombstone(namespace, key) {
            try books.putVersion(namespace, key, RowVersion(vector: try clock.bump(tombstone.vector), syncedAt: stamp))
            try books.removeTombstone(namespace, key)
        } else {
            try books.putVersion(namespace, key, RowVersion(vector: try clock.bump(VersionVector()), syncedAt: stamp))
        }
    }

    /// Accounts for a local delete: the tombstone carries the row's vector with the own dimension bumped.
    func observeDelete(_ namespace: String, key: [UInt8]) throws(SyncKernelError) {
        var vector = VersionVector()
        if let version = try books.version(namespace, key) {
            vector = version.vector
        } else if let tombstone = try books.tombstone(namespace, key) {
            vector = tombstone.vector
        }
        try books.putTombstone(namespace, Tombstone(key: key, vector: try clock.bump(vector)))
        try books.removeVersion(namespace, key)
    }

    /// Records the outcome of a merge apply: the merged vector and the stamp of the stored row.
    func record(_ namespace: String, key: [UInt8], vector: VersionVector, syncedAt: Int64) throws(SyncKernelError) {
        try books.putVersion(namespace, key, RowVersion(vector: vector, syncedAt: syncedAt))
    }

    /// Registers every stored row of a namespace that has no bookkeeping yet with an empty vector.
    func registerIfFirstSeen(_ namespace: String, rows: [InspectedRow]) throws(SyncKernelError) {
        guard try books.versionCount(namespace) == 0 else { return }
        for row in rows where !row.isDeviceDerived {
            try books.putVersion(namespace, row.key, RowVersion(vector: VersionVector(), syncedAt: row.stamp ?? 0))
        }
    }
}
