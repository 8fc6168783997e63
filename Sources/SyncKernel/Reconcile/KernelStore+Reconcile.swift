/// The reconcile half of the store: the range fingerprints it asks with, its answers to a peer's
/// requests under its `responsePolicy`, and merging a peer's response through the `Merger`.
///
/// Invariant: it reads and writes the store only through the store's own leaf indexes,
/// bookkeeping and single `RowWriter`, so the invariants of `KernelStore` hold for merges too.
extension KernelStore {
    /// The request to send for a divergent namespace: its range fingerprints.
    package func reconcileRequest(for namespace: String) throws(SyncKernelError) -> ReconcileRequest {
        let driver = try namespaces.driver(named: namespace)
        switch driver.granularity {
        case .ranges:
            return ReconcileRequest(namespace: namespace, buckets: Bucketizer.bucketize(indexes[namespace] ?? LeafIndex()))
        case .wholeNamespace:
            return ReconcileRequest(namespace: namespace, buckets: [])
        }
    }

    /// The response to a peer's request, or nil when there is nothing to give.
    package func respond(to request: ReconcileRequest) throws(SyncKernelError) -> ReconcileResponse? {
        let driver = try namespaces.driver(named: request.namespace)
        guard request.keys.isEmpty else { return try respond(toKeys: request.keys, driver: driver) }
        let index = indexes[request.namespace] ?? LeafIndex()
        let ranges = driver.granularity == .wholeNamespace || request.buckets.isEmpty
            ? [KeyRange.all]
            : Bucketizer.mismatchingRanges(request.buckets, over: index)
        guard !ranges.isEmpty else { return nil }
        var rows: [ShippedRow] = []
        var listings: [RangeListing] = []
        for range in ranges {
            let leaves = index.leaves(in: range)
            if case .listAbove(let threshold) = responsePolicy, driver.granularity == .ranges, leaves.count > threshold {
                listings.append(RangeListing(range: range, leaves: Array(leaves)))
                continue
            }
            for leaf in leaves { rows.append(try shippedRow(leaf.key, driver: driver)) }
        }
        let tombstones = driver.isCausal ? try books.tombstones(driver.name) : []
        guard !rows.isEmpty || !tombstones.isEmpty || !listings.isEmpty else { return nil }
        return ReconcileResponse(namespace: driver.name, rows: rows, tombstones: tombstones, listings: listings)
    }

    /// The rows a listing shows the responder holds differently: keys whose leaf differs or is missing here.
    package func wantedKeys(_ listings: [RangeListing], namespace: String) throws(SyncKernelError) -> [[UInt8]] {
        _ = try namespaces.driver(named: namespace)
        let index = indexes[namespace] ?? LeafIndex()
        return listings.flatMap { listing in
            listing.leaves.filter { index.hash(for: $0.key) != $0.hash }.map(\.key)
        }
    }

    private func respond(toKeys keys: [[UInt8]], driver: NamespaceDriver) throws(SyncKernelError) -> ReconcileResponse? {
        let index = indexes[driver.name] ?? LeafIndex()
        var rows: [ShippedRow] = []
        var tombstones: [Tombstone] = []
        for key in keys {
            if index.hash(for: key) != nil {
                rows.append(try shippedRow(key, driver: driver))
            }
            if driver.isCausal {
                tombstones += try books.versions(driver.name, key).filter { !$0.isLive }.map { Tombstone(key: key, vector: $0.vector) }
            }
        }
        guard !rows.isEmpty || !tombstones.isEmpty else { return nil }
        return ReconcileResponse(namespace: driver.name, rows: rows, tombstones: tombstones)
    }

    private func shippedRow(_ key: [UInt8], driver: NamespaceDriver) throws(SyncKernelError) -> ShippedRow {
        guard let bytes = try books.row(driver.name, key) else {
            throw SyncKernelError(.corruptBookkeeping, "leaf without a row in \(driver.name)")
        }
        guard driver.isCausal else { return ShippedRow(row: bytes, vector: nil) }
        let version = try books.version(driver.name, key)
        let vector = version?.vector ?? VersionVector()
        let content = version?.contentVector ?? vector
        let siblings = try books.versions(driver.name, key).compactMap { sibling in
            sibling.row.map { ShippedRow(row: $0, vector: sibling.vector) }
        }
        return ShippedRow(row: bytes, vector: vector, contentVector: content == vector ? nil : content, siblings: siblings)
    }

    /// Merges a peer's response under the namespace's rule, in one transaction.
    ///
    /// Either every row and tombstone is merged or, on any malformed row, none is (typed error).
    @discardableResult
    package func apply(_ response: ReconcileResponse) throws(SyncKernelError) -> ApplyOutcome {
        let driver = try namespaces.driver(named: response.namespace)
        let writer = RowWriter(books: books) { [unowned self] namespace, key in self.indexes[namespace]?.hash(for: key) }
        let merger = Merger(driver: driver, writer: writer, rowClock: RowClock(books: books, clock: clock))
        let counts = try db.transaction { () throws(SyncKernelError) -> (rows: Int, tombstones: Int) in
            var rowsApplied = 0
            for shipped in response.rows where try merger.merge(shipped) { rowsApplied += 1 }
            var tombstonesApplied = 0
            if driver.isCausal {
                for tombstone in response.tombstones where try merger.merge(tombstone) { tombstonesApplied += 1 }
            }
            return (rowsApplied, tombstonesApplied)
        }
        let changed = commitLeaves(writer)
        return ApplyOutcome(namespace: driver.name, rowsApplied: counts.rows, tombstonesApplied: counts.tombstones,
                            digestChanged: changed.contains(driver.name))
    }
}
