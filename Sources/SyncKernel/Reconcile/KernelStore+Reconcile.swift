/// The spec half of the store's reconcile: range fingerprints over sorted leaves (`bucketize`),
/// answers to a peer's requests, by-key answers, and merging a peer's response through the
/// `Merger`.
///
/// Invariant: it reads and writes the store only through the store's bookkeeping, structures and
/// single `RowWriter`, so the invariants of `KernelStore` hold for merges too. The spec's
/// requests need every leaf in key order: they read the namespace's leaves (a scan), which is
/// what the spec admits ("detection is a full scan") and what the sketch exchange avoids.
extension KernelStore {
    /// The spec request for a divergent namespace: its range fingerprints (empty for a namespace
    /// reconciled whole, which asks for everything).
    package func reconcileRequest(for namespace: String) throws(SyncKernelError) -> ReconcileRequest {
        let driver = try namespaces.driver(named: namespace)
        switch driver.granularity {
        case .ranges:
            return ReconcileRequest(namespace: namespace, buckets: Bucketizer.bucketize(SortedLeaves(sorted: try books.leaves(namespace))))
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
        let leaves = SortedLeaves(sorted: try books.leaves(driver.name))
        let ranges = driver.granularity == .wholeNamespace || request.buckets.isEmpty
            ? [KeyRange.all]
            : Bucketizer.mismatchingRanges(request.buckets, over: leaves)
        var rows: [ShippedRow] = []
        for range in ranges {
            for leaf in leaves.leaves(in: range) { rows.append(try shippedRow(leaf.key, driver: driver)) }
        }
        let tombstones = driver.isCausal ? try books.tombstones(driver.name) : []
        let response = ReconcileResponse(namespace: driver.name, rows: rows, tombstones: tombstones)
        return response.isEmpty ? [] : response.split()
    }

    /// The responses shipping exactly the rows of `keys` this store holds and their delete
    /// versions (none when there is nothing to give); `isFinal` marks them as a ship-back.
    package func respond(toKeys keys: [[UInt8]], namespace: String, isFinal: Bool = false) throws(SyncKernelError) -> [ReconcileResponse] {
        let driver = try namespaces.driver(named: namespace)
        var rows: [ShippedRow] = []
        var tombstones: [Tombstone] = []
        for key in Set(keys).sorted(by: [UInt8].keyPrecedes) {
            if let stored = try books.record(driver.name, key), stored.leaf != nil {
                rows.append(try shippedRow(key, stored: stored, driver: driver))
            }
            tombstones += try deleteVersions(key, driver: driver)
        }
        let response = ReconcileResponse(namespace: driver.name, rows: rows, tombstones: tombstones, isFinal: isFinal)
        return response.isEmpty ? [] : response.split()
    }

    /// The delete versions this store holds for `key` (none for an untracked namespace).
    func deleteVersions(_ key: [UInt8], driver: NamespaceDriver) throws(SyncKernelError) -> [Tombstone] {
        guard driver.isCausal else { return [] }
        return try books.versions(driver.name, key).filter { !$0.isLive }.map { Tombstone(key: key, vector: $0.vector) }
    }

    /// A stored row with its vectors and kept concurrent versions, ready to ship.
    func shippedRow(_ key: [UInt8], driver: NamespaceDriver) throws(SyncKernelError) -> ShippedRow {
        guard let stored = try books.record(driver.name, key) else {
            throw SyncKernelError(.corruptBookkeeping, "leaf without a row in \(driver.name)")
        }
        return try shippedRow(key, stored: stored, driver: driver)
    }

    /// The stored record of `key`, already read, as a shipped row with its vectors, kept
    /// concurrent versions and the creation dimension its own content would have.
    func shippedRow(_ key: [UInt8], stored: StoredRecord, driver: NamespaceDriver) throws(SyncKernelError) -> ShippedRow {
        let (bytes, leaf) = (stored.row, stored.leaf)
        guard driver.isCausal else { return ShippedRow(row: bytes, vector: nil) }
        let version = stored.version
        let vector = version?.vector ?? VersionVector()
        let content = version?.contentVector ?? vector
        let siblings = try books.versions(driver.name, key).compactMap { sibling in
            sibling.row.map { ShippedRow(row: $0, vector: sibling.vector) }
        }
        return ShippedRow(row: bytes, vector: vector, contentVector: content == vector ? nil : content, siblings: siblings,
                          creation: leaf.map { DeviceID.creation(key: key, leaf: $0) })
    }

    /// Merges a peer's response under the namespace's rule, in one transaction, and says which
    /// keys to ship back (`ApplyOutcome.keysToShipBack`).
    ///
    /// Either every row and tombstone is merged or, on any malformed row, none is (typed error):
    /// a vector with a counter above `VersionVector.maxCounter` (`counterOutOfRange`, checked
    /// before anything is read, as the frame decoder already does), a row the namespace refuses,
    /// an error from the namespace's tie-break or adopt hook. Nothing of a failed apply is written:
    /// it runs in one transaction and the in-memory structures are adopted only after it commits.
    /// When a shipped vector shows this store lost history (it counts the device's current
    /// dimension past what the store held for the key), the store takes a fresh epoch in the
    /// same transaction, before any later local write (`ApplyOutcome.epochChange`).
    @discardableResult
    package func apply(_ response: ReconcileResponse) throws(SyncKernelError) -> ApplyOutcome {
        let driver = try namespaces.driver(named: response.namespace)
        try response.checkCounters()
        let writer = makeWriter()
        let merger = Merger(driver: driver, writer: writer, rowClock: RowClock(books: books, clock: clock))
        var shipped: Set<[UInt8]> = []
        var shipBack: Set<[UInt8]> = []
        var collided: Set<[UInt8]> = []
        var ahead = false
        func note(_ merged: Merger.Merged) {
            if merged.senderLacks { shipBack.insert(merged.key) }
            if merged.collided { collided.insert(merged.key) }
            if merged.aheadOfStore { ahead = true }
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
        return ApplyOutcome(namespace: driver.name, rowsApplied: counts.rows, tombstonesApplied: counts.tombstones,
                            digestChanged: changed.contains(driver.name),
                            keysToShipBack: shipBack.sorted(by: [UInt8].keyPrecedes),
                            collidedKeys: collided.sorted(by: [UInt8].keyPrecedes), epochChange: epochChange)
    }
}
