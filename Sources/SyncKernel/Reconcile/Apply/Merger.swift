/// Applies one incoming row or tombstone under its namespace's rule, inside the caller's transaction.
///
/// Invariants: causal rows go through `VersionVector.resolveMerge` over the key's versions, so
/// the result does not depend on the order responses arrive in, no write is lost unless a
/// causally later write or delete replaced it, and every device shows the version the
/// namespace's tie-break prefers; the stored vector afterwards covers everything merged and the
/// content vector is the visible version's; an adopted row records its post-merge stamp so RowClock does not
/// re-bump it; every row write goes through the store's single `RowWriter`. Each merge also
/// says whether the sender lacks something this store held for the key (`Merged.senderLacks`):
/// what this store knew of the key before the merge (every version's vector, deletes included)
/// is not covered by the shipped vector, or, for an untracked rule, the merged row is not the
/// shipped one, or the merge told apart versions that collided. That is exactly when the sender
/// needs this store's version back. Versions of one key that carry one vector but different
/// content (two writes counted alike) are never deduplicated: they are marked apart
/// (`VersionVector.separatingCollisions`) and kept as concurrent versions (`Merged.collided`).
/// A shipped vector that counts this device's current dimension past everything this store
/// held for the key is evidence the store lost history (`Merged.aheadOfStore`).
/// An error from a namespace hook (decoding, the tie-break, adopt) fails the merge with that
/// error; the caller's transaction then rolls back the whole apply.
/// A local row or kept version that fails `StoredRowCheck` is quarantined in the merge's own
/// transaction and the key merges as if it were not held, so the shipped copy replaces it.
/// Every merge of a causal key moves the key's structure item once, from the item it held before
/// to the one the merged row and kept versions give (`RowWriter.settle`), and says whether it
/// opened, changed or resolved a conflict (`Merged.conflict`).
struct Merger {
    /// One merge's result.
    struct Merged {
        /// The merged key.
        let key: [UInt8]
        /// Whether the stored row changed.
        let changed: Bool
        /// Whether the sender lacks something this store held for the key.
        let senderLacks: Bool
        /// Whether versions that carried one vector but different content were told apart here.
        var collided = false
        /// Whether a shipped vector counted this device's current dimension past everything this
        /// store held for the key.
        var aheadOfStore = false
        /// How the merge changed the key's conflict, if it did.
        var conflict: Conflict?
        /// Operations the shipped row held that the namespace's rules refuse (dropped).
        var refusedOperations = 0
        /// The fields whose held values disagreed between the local and the shipped row.
        var disagreeingFields: [String] = []
        /// Whether the shipped version could not be read against this store and was left
        /// unmerged: it names the sender's epoch this store does not hold
        /// (`DeviceID.unresolvedEpoch`), or it is a delta row whose base this store's version of
        /// the key does not match (`DeltaVector.resolve`).
        var unresolved = false

        /// A change to a key's conflict (live versions of more than one content).
        enum Conflict {
            /// The key now holds live versions of more than one content, and a set of live
            /// versions this store did not hold before (a new conflict, or one that gained or
            /// changed a version).
            case opened
            /// The key held live versions of more than one content and now holds one content or
            /// none: a write that dominates the others (or a delete that saw them all) arrived.
            case resolved
        }
    }

    let driver: NamespaceDriver
    let writer: RowWriter
    let rowClock: RowClock

    private var books: Bookkeeping { writer.books }

    /// Merges a shipped row.
    func merge(_ shipped: ShippedRow) throws(SyncKernelError) -> Merged {
        let incoming = try driver.inspect(shipped.row)
        guard !incoming.isDeviceDerived else { return Merged(key: incoming.key, changed: false, senderLacks: false) }
        let refused = try driver.refusedOperations(incoming)
        guard driver.isCausal else {
            let local = try writer.usableRecord(incoming.key, driver: driver, site: .merge)?.row
            let disagreeing = try local.map { (local) throws(SyncKernelError) in try driver.disagreements(local, incoming) } ?? []
            guard let bytes = try driver.mergeUntracked(local, incoming) else {
                return Merged(key: incoming.key, changed: false, senderLacks: local.map { $0.bytes != incoming.bytes } ?? false,
                              refusedOperations: refused, disagreeingFields: disagreeing)
            }
            return Merged(key: incoming.key, changed: try store(bytes), senderLacks: bytes != incoming.bytes,
                          refusedOperations: refused, disagreeingFields: disagreeing)
        }
        guard !shipped.namesUnresolvedEpoch else { return Merged(key: incoming.key, changed: false, senderLacks: false, unresolved: true) }
        let localRecord = try writer.usableRecord(incoming.key, driver: driver, site: .merge)
        let local = try writer.usableVersions(incoming.key, driver: driver, site: .merge)
        var whole = shipped
        if let check = shipped.base {
            let held = local.reduce(localRecord?.version?.vector ?? VersionVector()) { $0.merged(with: $1.vector) }
            guard let delta = shipped.vector, let vector = DeltaVector.resolve(delta, check: check, over: held) else {
                return Merged(key: incoming.key, changed: false, senderLacks: false, unresolved: true)
            }
            whole = ShippedRow(row: shipped.row, vector: vector, writer: shipped.writer)
        }
        let shippedVersions = try versions(of: whole, row: incoming)
        var merged = try resolve(key: incoming.key, localRecord: localRecord, localVersions: local, incoming: shippedVersions.versions,
                                 context: shippedVersions.context, inspected: shippedVersions.inspected, absent: false)
        merged.refusedOperations = refused
        return merged
    }

    /// The versions a shipped row of a causal namespace carries, already inspected as `row`: its
    /// content under its content vector and each sibling under its own (each with the writer it
    /// names), the creation placeholders (`DeviceID.ownCreation`) replaced by each row's creation
    /// dimension; the context is the shipped vector. Throws for a sibling that does not read, is
    /// device-derived or names another key.
    func versions(of shipped: ShippedRow,
                  row incoming: InspectedRow) throws(SyncKernelError) -> (versions: [StoredVersion], context: VersionVector,
                                                                          inspected: [[UInt8]: InspectedRow]) {
        let own = DeviceID.creation(key: incoming.key, leaf: incoming.leaf.hash)
        let context = (shipped.vector ?? VersionVector()).replacing(.ownCreation, with: own)
        var versions = [StoredVersion(vector: shipped.contentVector?.replacing(.ownCreation, with: own) ?? context, row: incoming.bytes,
                                      writer: shipped.writer)]
        var inspected = [incoming.bytes: incoming]
        for sibling in shipped.siblings {
            let row = try driver.inspect(sibling.row)
            guard row.key == incoming.key, !row.isDeviceDerived else {
                throw SyncKernelError(.malformedFrame, "a sibling of another key")
            }
            let siblingOwn = DeviceID.creation(key: row.key, leaf: row.leaf.hash)
            versions.append(StoredVersion(vector: (sibling.vector ?? VersionVector()).replacing(.ownCreation, with: siblingOwn),
                                          row: row.bytes, writer: sibling.writer))
            inspected[row.bytes] = row
        }
        return (versions, context, inspected)
    }

    /// Merges a shipped delete version; `changed` says whether it deleted the visible row.
    func merge(_ tombstone: Tombstone) throws(SyncKernelError) -> Merged {
        guard tombstone.vector[.unresolvedEpoch] == 0 else {
            return Merged(key: tombstone.key, changed: false, senderLacks: false, unresolved: true)
        }
        return try mergeVersions(key: tombstone.key, incoming: [StoredVersion(vector: tombstone.vector, row: nil)],
                          context: tombstone.vector, inspected: [:])
    }

    /// Reads the key's local versions (quarantining damaged ones) and merges the incoming ones
    /// into them (`resolve`); `inspected` holds incoming rows already inspected.
    private func mergeVersions(key: [UInt8], incoming: [StoredVersion], context: VersionVector,
                               inspected: [[UInt8]: InspectedRow]) throws(SyncKernelError) -> Merged {
        let localRecord = try writer.usableRecord(key, driver: driver, site: .merge)
        let local = try writer.usableVersions(key, driver: driver, site: .merge)
        return try resolve(key: key, localRecord: localRecord, localVersions: local, incoming: incoming, context: context,
                           inspected: inspected, absent: false)
    }

    /// The heart of the causal merge: the key's versions and the incoming ones are reduced to the
    /// antichain of versions no other version dominates (`resolveMerge` over sets), the visible
    /// row becomes the live version the tie-break prefers (add-wins: any live version keeps the
    /// key alive), and the rest are kept beside it. Returns whether the visible row changed.
    /// With `absent` (the caller checked in this transaction that the store holds nothing under
    /// the key, and passes no local state), a visible row with no version kept beside it is
    /// inserted with its RowVersion in one statement and nothing is cleared first; the outcome is
    /// the same as merging into the empty key.
    func resolve(key: [UInt8], localRecord: (record: StoredRecord, row: InspectedRow, version: RowVersion?)?,
                 localVersions: [StoredVersion], incoming: [StoredVersion], context: VersionVector,
                 inspected known: [[UInt8]: InspectedRow], absent: Bool) throws(SyncKernelError) -> Merged {
        let localBytes = localRecord?.record.row
        let localVersion = localRecord?.version
        var local = localVersions
        let before = absent ? nil : try writer.item(driver.name, key)
        var liveBefore = Set(local.filter(\.isLive).map(\.vector))
        if localRecord != nil { liveBefore.insert(localVersion?.contentVector ?? VersionVector()) }
        var inspected = known
        if let localRecord {
            local.append(StoredVersion(vector: localVersion?.contentVector ?? VersionVector(), row: localRecord.record.row,
                                       writer: localVersion?.writer))
            inspected[localRecord.record.row] = localRecord.row
        }
        let known = local.reduce(localVersion?.vector ?? VersionVector()) { $0.merged(with: $1.vector) }
        let shipped = incoming.reduce(context) { $0.merged(with: $1.vector) }
        let aheadOfStore = rowClock.clock.dimension.map { shipped[$0] > known[$0] } ?? false
        func inspect(_ bytes: [UInt8]) throws(SyncKernelError) -> InspectedRow {
            if let row = inspected[bytes] { return row }
            let row = try driver.inspect(bytes)
            inspected[bytes] = row
            return row
        }
        for version in local + incoming {
            if let row = version.row { _ = try inspect(row) }
        }
        let rows = inspected
        // Every live row was inspected above; its leaf is its content.
        let (versions, collided) = VersionVector.separatingCollisions(local + incoming, key: key) { rows[$0]?.leaf.hash ?? $0 }
        let senderLacks = collided || (!known.isEmpty && ![.dominates, .equal].contains(context.relation(to: known)))
        let merged = try VersionVector.resolveMerge(versions: versions) { (challenger, holder) throws(SyncKernelError) in
            // Every live row was inspected above, so both lookups succeed.
            guard let challenger = rows[challenger], let holder = rows[holder] else { return false }
            return try driver.incomingWinsTie(challenger, holder)
        }
        let everything = versions.reduce(context.merged(with: localVersion?.vector ?? VersionVector())) {
            $0.merged(with: $1.vector)
        }
        let liveAfter = Set(((merged.visible.map { [$0] } ?? []) + merged.others.filter(\.isLive)).map(\.vector))
        // A conflict is live versions of more than one content (leaf), not of more than one vector.
        func contents(_ versions: [StoredVersion]) -> Int {
            Set(versions.compactMap { version in version.row.map { rows[$0]?.leaf.hash ?? $0 } }).count
        }
        let conflictedAfter = contents((merged.visible.map { [$0] } ?? []) + merged.others) > 1
        let conflict: Merged.Conflict? = switch (contents(local) > 1, conflictedAfter) {
        case (_, true) where liveAfter != liveBefore: .opened
        case (true, false): .resolved
        default: nil
        }
        if absent, merged.others.isEmpty {
            guard let visible = merged.visible, let bytes = visible.row else {
                return Merged(key: key, changed: false, senderLacks: senderLacks, collided: collided, aheadOfStore: aheadOfStore)
            }
            let row = try inspect(try driver.adopt(inspect(bytes), nil))
            try writer.insert(driver.name, row: row, version: RowVersion(vector: everything, syncedAt: row.stamp ?? 0,
                                                                          contentVector: visible.vector, writer: visible.writer))
            return Merged(key: key, changed: true, senderLacks: senderLacks, collided: collided, aheadOfStore: aheadOfStore,
                          conflict: conflict)
        }
        var changed = false
        if let visible = merged.visible, let bytes = visible.row {
            let stored = bytes == localBytes ? bytes : try driver.adopt(inspect(bytes), try localBytes.map(inspect))
            if stored != localBytes {
                try writer.writeRow(driver.name, row: try inspect(stored))
                changed = true
            }
            try rowClock.record(driver.name, key: key, vector: everything, contentVector: visible.vector,
                                syncedAt: try inspect(stored).stamp ?? 0, writer: visible.writer)
        } else {
            if localBytes != nil {
                try writer.deleteRow(driver.name, key: key)
                changed = true
            }
            try books.removeVersion(driver.name, key)
        }
        try writer.replaceVersions(driver.name, key, with: merged.others)
        try writer.settle(driver.name, key, from: before)
        return Merged(key: key, changed: changed, senderLacks: senderLacks, collided: collided, aheadOfStore: aheadOfStore,
                      conflict: conflict)
    }

    private func store(_ bytes: [UInt8]) throws(SyncKernelError) -> Bool {
        let row = try driver.inspect(bytes)
        try writer.put(driver.name, row: row)
        return true
    }
}
