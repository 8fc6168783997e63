/// The spec half of the store's reconcile: range fingerprints over sorted items (`bucketize`;
/// a key's item is its leaf, or its `ConflictItem` while it keeps concurrent versions, so the
/// spec's exchange converges conflicts as the sketch exchange does),
/// answers to a peer's requests, by-key answers, and merging a peer's response through the
/// `Merger`.
///
/// Invariant: it reads and writes the store only through the store's bookkeeping, structures and
/// single `RowWriter`, so the invariants of `KernelStore` hold for merges too. The spec's
/// requests need every leaf in key order: they read the namespace's leaves (a scan), which is
/// what the spec admits ("detection is a full scan") and what the sketch exchange avoids. Every
/// row shipped passes `StoredRowCheck` first (it decodes to its key and its stored leaf, and
/// its vectors decode): a damaged one is left out of the answer and quarantined, in one
/// transaction, once the answer is built, so a peer never receives bytes it cannot merge and
/// the store's digest stops claiming the row (the peer's good copy then comes back).
extension KernelStore {
    /// The spec request for a divergent namespace: its range fingerprints (empty for a namespace
    /// reconciled whole, which asks for everything).
    package func reconcileRequest(for namespace: String) throws(SyncKernelError) -> ReconcileRequest {
        let driver = try namespaces.driver(named: namespace)
        switch driver.granularity {
        case .ranges:
            return ReconcileRequest(namespace: namespace,
                                    buckets: Bucketizer.bucketize(SortedLeaves(sorted: try StructureItems.items(driver, books: books))))
        case .wholeNamespace:
            return ReconcileRequest(namespace: namespace, buckets: [])
        }
    }

    /// The responses to a peer's request (none when there is nothing to give): every row of each
    /// mismatching range, as the spec ships them, split so no frame outgrows
    /// `ReconcileResponse.rowBytesPerFrame`.
    package func respond(to request: ReconcileRequest) throws(SyncKernelError) -> [ReconcileResponse] {
        let driver = try namespaces.driver(named: request.namespace)
        guard request.keys.isEmpty else { return try respond(toKeys: request.keys, namespace: driver.name) }
        let leaves = SortedLeaves(sorted: try StructureItems.items(driver, books: books))
        let ranges = driver.granularity == .wholeNamespace || request.buckets.isEmpty
            ? [KeyRange.all]
            : Bucketizer.mismatchingRanges(request.buckets, over: leaves)
        var rows: [ShippedRow] = []
        var damaged: [DamagedRow] = []
        for range in ranges {
            for leaf in leaves.leaves(in: range) {
                guard let stored = try books.record(driver.name, leaf.key) else {
                    throw SyncKernelError(.corruptBookkeeping, "leaf without a row in \(driver.name)")
                }
                if let row = try shippedRow(leaf.key, stored: stored, driver: driver, damaged: &damaged) { rows.append(row) }
            }
        }
        let tombstones = driver.isCausal ? try shippableTombstones(driver, damaged: &damaged) : []
        try quarantine(damaged, site: .ship)
        let response = ReconcileResponse(namespace: driver.name, rows: rows, tombstones: tombstones)
        return response.isEmpty ? [] : response.split()
    }

    /// The responses shipping exactly the rows of `keys` this store holds and their delete
    /// versions (none when there is nothing to give); `isFinal` marks them as a ship-back.
    package func respond(toKeys keys: [[UInt8]], namespace: String, isFinal: Bool = false) throws(SyncKernelError) -> [ReconcileResponse] {
        let driver = try namespaces.driver(named: namespace)
        var rows: [ShippedRow] = []
        var tombstones: [Tombstone] = []
        var damaged: [DamagedRow] = []
        for key in Set(keys).sorted(by: [UInt8].keyPrecedes) {
            if let stored = try books.record(driver.name, key), stored.leaf != nil,
               let row = try shippedRow(key, stored: stored, driver: driver, damaged: &damaged) {
                rows.append(row)
            }
            tombstones += try deleteVersions(key, driver: driver, damaged: &damaged)
        }
        try quarantine(damaged, site: .ship)
        let response = ReconcileResponse(namespace: driver.name, rows: rows, tombstones: tombstones, isFinal: isFinal)
        return response.isEmpty ? [] : response.split()
    }

    /// The delete versions this store holds for `key` (none for an untracked namespace); damaged
    /// ones go to `damaged`.
    func deleteVersions(_ key: [UInt8], driver: NamespaceDriver, damaged: inout [DamagedRow]) throws(SyncKernelError) -> [Tombstone] {
        guard driver.isCausal else { return [] }
        return try books.keptVersions(key, driver: driver, damaged: &damaged).filter { !$0.isLive }.map { Tombstone(key: key, vector: $0.vector) }
    }

    /// Every delete version of a namespace that reads, in key order; damaged ones go to `damaged`.
    func shippableTombstones(_ driver: NamespaceDriver, damaged: inout [DamagedRow]) throws(SyncKernelError) -> [Tombstone] {
        var tombstones: [Tombstone] = []
        try books.forEachVersionEntry(driver.name) { key, entry in
            guard entry.row == nil else { return }
            switch StoredRowCheck.kept(key, vector: entry.vector, row: nil, driver: driver) {
            case .usable(let version):
                tombstones.append(Tombstone(key: key, vector: version.vector))
            case .damaged(let reason):
                damaged.append(DamagedRow(namespace: driver.name, key: key, row: [], vector: entry.vector, reason: reason))
            }
        }
        return tombstones
    }

    /// The stored record of `key`, already read, as a shipped row with its vectors, kept
    /// concurrent versions and the creation dimension its own content would have; nil when the
    /// row fails `StoredRowCheck.visible` (it goes to `damaged`, and the row is not shipped). A
    /// damaged kept version is left out and goes to `damaged` too.
    func shippedRow(_ key: [UInt8], stored: StoredRecord, driver: NamespaceDriver,
                    damaged: inout [DamagedRow]) throws(SyncKernelError) -> ShippedRow? {
        let version: RowVersion?
        switch StoredRowCheck.visible(key, stored, driver: driver) {
        case .usable(let usable):
            version = usable.version
        case .damaged(let reason):
            damaged.append(DamagedRow(namespace: driver.name, key: key, row: stored.row, reason: reason))
            return nil
        }
        let (bytes, leaf) = (stored.row, stored.leaf)
        guard driver.isCausal else { return ShippedRow(row: bytes, vector: nil) }
        let vector = version?.vector ?? VersionVector()
        let content = version?.contentVector ?? vector
        let siblings = try books.keptVersions(key, driver: driver, damaged: &damaged).compactMap { sibling in
            sibling.row.map { ShippedRow(row: $0, vector: sibling.vector, writer: sibling.writer) }
        }
        return ShippedRow(row: bytes, vector: vector, contentVector: content == vector ? nil : content, siblings: siblings,
                          creation: leaf.map { DeviceID.creation(key: key, leaf: $0) }, writer: version?.writer)
    }

    /// Merges a peer's response under the namespace's rule, in one transaction, and says which
    /// keys to ship back (`ApplyOutcome.keysToShipBack`) and which conflicts it opened or
    /// resolved (`ApplyOutcome.conflictsOpened`, `conflictsResolved`).
    ///
    /// Either every row and tombstone is merged or, on any malformed row, none is (typed error):
    /// a vector with a counter above `VersionVector.maxCounter` (`counterOutOfRange`, checked
    /// before anything is read, as the frame decoder already does), a row the namespace refuses,
    /// an error from the namespace's tie-break or adopt hook. Nothing of a failed apply is written:
    /// it runs in one transaction and the in-memory structures are adopted only after it commits.
    /// When a shipped vector shows this store lost history (it counts the device's current
    /// dimension past what the store held for the key), the store takes a fresh epoch in the
    /// same transaction, before any later local write (`ApplyOutcome.epochChange`).
    /// `sender`, when given, is the sibling the response came from: the change log names it as
    /// the origin of every change the merge makes (`ChangeOrigin.sibling`; `local` without).
    @discardableResult
    package func apply(_ response: ReconcileResponse, from sender: DeviceID? = nil) throws(SyncKernelError) -> ApplyOutcome {
        let driver = try namespaces.driver(named: response.namespace)
        try response.checkCounters()
        // Wanted prefixes name this store's keys as the sender's difference saw them, so they are
        // resolved before the response's rows are merged: a row of the sender's that lands next
        // to a wanted key would otherwise make its prefix start more keys than the sender
        // counted (more than `maxPrefixMatches`: then nothing ships). A response is split with
        // its prefixes ahead of every row, so no earlier part of the answer merged rows either.
        let prefixed = try keys(wantedBy: response.wantPrefixes, namespace: driver.name)
        let writer = makeWriter()
        if let sender { writer.origin = .sibling(sender) }
        let merger = Merger(driver: driver, writer: writer, rowClock: RowClock(writer: writer, clock: clock))
        var shipped: Set<[UInt8]> = []
        var shipBack: Set<[UInt8]> = []
        var collided: Set<[UInt8]> = []
        var opened: Set<[UInt8]> = []
        var resolved: Set<[UInt8]> = []
        var refused = 0
        var disagreements: [[UInt8]: [String]] = [:]
        var ahead = false
        var unresolved: Set<[UInt8]> = []
        func note(_ merged: Merger.Merged) {
            if merged.unresolved { unresolved.insert(merged.key) }
            if merged.senderLacks { shipBack.insert(merged.key) }
            if merged.collided { collided.insert(merged.key) }
            if merged.aheadOfStore { ahead = true }
            refused += merged.refusedOperations
            if !merged.disagreeingFields.isEmpty { disagreements[merged.key, default: []] += merged.disagreeingFields }
            switch merged.conflict {
            case .opened:
                opened.insert(merged.key)
                resolved.remove(merged.key)
            case .resolved:
                resolved.insert(merged.key)
                opened.remove(merged.key)
            case nil:
                break
            }
        }
        let (counts, fresh) = try db.transaction { () throws(SyncKernelError) -> ((rows: Int, tombstones: Int), EpochLedger.Record?) in
            var rowsApplied = 0
            for row in response.rows {
                let merged = try merger.merge(row)
                shipped.insert(merged.key)
                if merged.changed { rowsApplied += 1 }
                note(merged)
            }
            var tombstonesApplied = 0
            if driver.isCausal {
                for tombstone in response.tombstones {
                    let merged = try merger.merge(tombstone)
                    if merged.changed { tombstonesApplied += 1 }
                    note(merged)
                }
            }
            try persist(writer)
            var fresh: EpochLedger.Record?
            if ahead, let device = clock.device {
                let record = nextRecord(device: device, after: try ledger.record())
                try ledger.store(record)
                fresh = record
            }
            return ((rowsApplied, tombstonesApplied), fresh)
        }
        let changed = adopt(writer)
        var epochChange: EpochChange?
        if let fresh {
            epochChange = EpochChange(reason: .peerEvidence, epoch: fresh.epoch)
            try settle(fresh, change: epochChange, strict: false)
        }
        shipBack.formUnion(response.want.filter { !shipped.contains($0) })
        shipBack.formUnion(prefixed.subtracting(shipped))
        return ApplyOutcome(namespace: driver.name, rowsApplied: counts.rows, tombstonesApplied: counts.tombstones,
                            digestChanged: changed.contains(driver.name),
                            keysToShipBack: shipBack.sorted(by: [UInt8].keyPrecedes),
                            collidedKeys: collided.sorted(by: [UInt8].keyPrecedes), epochChange: epochChange,
                            conflictsOpened: opened.sorted(by: [UInt8].keyPrecedes),
                            conflictsResolved: resolved.sorted(by: [UInt8].keyPrecedes), refusedOperations: refused,
                            backfillConflicts: disagreements.map { BackfillConflict(key: $0.key, fields: $0.value) }
                                .sorted { [UInt8].keyPrecedes($0.key, $1.key) },
                            unresolvedKeys: unresolved.sorted(by: [UInt8].keyPrecedes))
    }
}
