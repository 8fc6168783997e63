extension Merger {
    /// The versions a snapshot carries for one key, read and checked before anything is written:
    /// every row inspected, every vector within bounds, the creation placeholders replaced.
    ///
    /// Invariant: built only by `prepareAbsent`, so a key whose versions do not all read is
    /// refused before any of them touches the store.
    struct AbsentKey {
        /// The key.
        let key: [UInt8]
        /// The incoming versions: the shipped row's content, its siblings, the deletes.
        let versions: [StoredVersion]
        /// Everything the shipped row and the deletes say they merged.
        let context: VersionVector
        /// Every live row of `versions`, inspected, by its bytes.
        let inspected: [[UInt8]: InspectedRow]
        /// The shipped row of an untracked namespace (which keeps no versions).
        let untracked: InspectedRow?
    }

    /// Reads a snapshot's share of one key (its shipped row, inspected already, and its delete
    /// versions) into exactly the versions `merge(_:)` of the row and `merge(_:)` of each delete
    /// would merge (`versions(of:row:)`), or throws, writing nothing, when a vector is out of
    /// range, a sibling row does not read or names another key, a delete names another key, or
    /// the row is device-derived or of another key.
    func prepareAbsent(key: [UInt8], shipped: ShippedRow?, row: InspectedRow?,
                       tombstones: [Tombstone]) throws(SyncKernelError) -> AbsentKey {
        try shipped?.checkCounters()
        for tombstone in tombstones {
            try tombstone.vector.checkBounds("a snapshot's delete version")
            guard tombstone.key == key else { throw SyncKernelError(.malformedFrame, "a delete version of another key") }
        }
        if let row, row.isDeviceDerived || row.key != key {
            throw SyncKernelError(.malformedFrame, "a snapshot row that is device-derived or of another key")
        }
        guard driver.isCausal else {
            return AbsentKey(key: key, versions: [], context: VersionVector(), inspected: [:], untracked: row)
        }
        var versions: [StoredVersion] = []
        var inspected: [[UInt8]: InspectedRow] = [:]
        var context = VersionVector()
        if let shipped, let row {
            (versions, context, inspected) = try self.versions(of: shipped, row: row)
        }
        for tombstone in tombstones {
            versions.append(StoredVersion(vector: tombstone.vector, row: nil))
            context = context.merged(with: tombstone.vector)
        }
        return AbsentKey(key: key, versions: versions, context: context, inspected: inspected, untracked: nil)
    }

    /// Stores a prepared key this store holds nothing under (the caller checked
    /// `Bookkeeping.isAbsent` in this transaction) through the merge core `apply` uses
    /// (`resolve`), with no local state: collisions told apart, the antichain resolved under the
    /// namespace's tie-break, the visible row adopted over nothing and inserted with its
    /// RowVersion in one statement, the other versions kept beside it. An untracked namespace
    /// stores the row its rule keeps over nothing. `changed` says whether a visible row was stored.
    func insertAbsent(_ absent: AbsentKey) throws(SyncKernelError) -> Merged {
        if let row = absent.untracked {
            guard let bytes = try driver.mergeUntracked(nil, row) else {
                return Merged(key: absent.key, changed: false, senderLacks: false)
            }
            try writer.insert(driver.name, row: bytes == row.bytes ? row : try driver.inspect(bytes), version: nil)
            return Merged(key: absent.key, changed: true, senderLacks: false)
        }
        return try resolve(key: absent.key, localRecord: nil, localVersions: [], incoming: absent.versions, context: absent.context,
                           inspected: absent.inspected, absent: true)
    }
}
