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
    /// versions) into the versions `merge(_:)` and `merge(_:)` of a tombstone would merge, or
    /// throws, writing nothing, when a vector is out of range, a sibling row does not read or
    /// names another key, or the row is device-derived.
    func prepareAbsent(key: [UInt8], shipped: ShippedRow?, row: InspectedRow?,
                       tombstones: [Tombstone]) throws(SyncKernelError) -> AbsentKey {
        try shipped?.checkCounters()
        for tombstone in tombstones { try tombstone.vector.checkBounds("a snapshot's delete version") }
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
            let own = DeviceID.creation(key: key, leaf: row.leaf.hash)
            context = (shipped.vector ?? VersionVector()).replacing(.ownCreation, with: own)
            versions.append(StoredVersion(vector: shipped.contentVector?.replacing(.ownCreation, with: own) ?? context, row: row.bytes))
            inspected[row.bytes] = row
            for sibling in shipped.siblings {
                let siblingRow = try driver.inspect(sibling.row)
                guard siblingRow.key == key, !siblingRow.isDeviceDerived else {
                    throw SyncKernelError(.malformedFrame, "a sibling of another key")
                }
                let siblingOwn = DeviceID.creation(key: key, leaf: siblingRow.leaf.hash)
                versions.append(StoredVersion(vector: (sibling.vector ?? VersionVector()).replacing(.ownCreation, with: siblingOwn),
                                              row: siblingRow.bytes))
                inspected[siblingRow.bytes] = siblingRow
            }
        }
        for tombstone in tombstones {
            guard tombstone.key == key else { throw SyncKernelError(.malformedFrame, "a delete version of another key") }
            versions.append(StoredVersion(vector: tombstone.vector, row: nil))
            context = context.merged(with: tombstone.vector)
        }
        return AbsentKey(key: key, versions: versions, context: context, inspected: inspected, untracked: nil)
    }

    /// Stores a prepared key this store holds nothing under (the caller checked
    /// `Bookkeeping.isAbsent` in this transaction), merging its versions exactly as
    /// `mergeVersions` does for a key with no local versions: collisions told apart, the
    /// antichain resolved under the namespace's tie-break, the visible row adopted over nothing
    /// and written with its RowVersion (everything merged, the content vector, the row's stamp)
    /// in one statement, the other versions kept beside it. An untracked namespace stores the
    /// row its rule keeps over nothing. `changed` says whether a visible row was stored.
    func insertAbsent(_ absent: AbsentKey) throws(SyncKernelError) -> Merged {
        if let row = absent.untracked {
            guard let bytes = try driver.mergeUntracked(nil, row) else {
                return Merged(key: absent.key, changed: false, senderLacks: false)
            }
            try writer.insert(driver.name, row: bytes == row.bytes ? row : try driver.inspect(bytes), version: nil)
            return Merged(key: absent.key, changed: true, senderLacks: false)
        }
        let rows = absent.inspected
        let (versions, collided) = VersionVector.separatingCollisions(absent.versions, key: absent.key) { rows[$0]?.leaf.hash ?? $0 }
        let merged = try VersionVector.resolveMerge(versions: versions) { (challenger, holder) throws(SyncKernelError) in
            // Every live row was inspected while preparing, so both lookups succeed.
            guard let challenger = rows[challenger], let holder = rows[holder] else { return false }
            return try driver.incomingWinsTie(challenger, holder)
        }
        let everything = versions.reduce(absent.context) { $0.merged(with: $1.vector) }
        var changed = false
        if let visible = merged.visible, let bytes = visible.row, let row = rows[bytes] {
            let adopted = try driver.adopt(row, nil)
            let stored = adopted == bytes ? row : try driver.inspect(adopted)
            try writer.insert(driver.name, row: stored,
                              version: RowVersion(vector: everything, syncedAt: stored.stamp ?? 0, contentVector: visible.vector))
            changed = true
        }
        if !merged.others.isEmpty { try writer.books.replaceVersions(driver.name, absent.key, with: merged.others) }
        let aheadOfStore = rowClock.clock.dimension.map { everything[$0] > 0 } ?? false
        return Merged(key: absent.key, changed: changed, senderLacks: false, collided: collided, aheadOfStore: aheadOfStore)
    }
}
