import SQLiteStore

/// One namespace's whole-store snapshot pages, read from a store's tables: what
/// `KernelStore.snapshotPage` (the device's own connection, which then quarantines the damaged
/// rows it met) and `StoreReadConnection.snapshotPage` (a read-only connection beside a running
/// device, which leaves them for the device's ship path to quarantine) both page with.
///
/// Invariants: a page is read in one read transaction and holds every key's whole share (row,
/// vectors, kept concurrent versions, deletes), checked by `StoredRowCheck` as the ship path
/// checks it: a damaged row or kept version is left out of the page and returned beside it;
/// device-derived rows are never paged out; nothing is written.
struct SnapshotPager {
    let db: SQLiteConnection<SyncKernelError>
    let books: Bookkeeping

    /// The page of `driver`'s namespace after key `cursor` (from its first key when nil): the
    /// shares of at most `maxKeys` consecutive keys, stopping before a key whose share would take
    /// the page past `maxBytes` of estimated wire bytes, `ReconcileResponse.decodeExcessPerFrame`
    /// of modelled decoding excess or `DeviceTable.maxDevices` devices named (`DeviceTally`; the
    /// first key always goes in), and the damaged entries met on the way.
    func page(_ driver: NamespaceDriver, after cursor: [UInt8]?, maxKeys: Int,
              maxBytes: Int) throws(SyncKernelError) -> (page: SnapshotPage, damaged: [DamagedRow]) {
        let limit = max(1, maxKeys)
        var damaged: [DamagedRow] = []
        let page = try db.transaction(writing: false) { () throws(SyncKernelError) -> SnapshotPage in
            let records = try books.records(driver.name, after: cursor, limit: limit)
            let deleted = driver.isCausal ? try books.deletedKeys(driver.name, after: cursor, limit: limit) : []
            var (nextRecord, nextDeleted) = (0, 0)
            var rows: [ShippedRow] = []
            var tombstones: [Tombstone] = []
            var (covered, leftOut, bytes, excess) = (0, 0, 0, 0)
            var lastKey: [UInt8]?
            var tally = DeviceTally()
            var full = false
            while covered < limit {
                let recordKey = nextRecord < records.count ? records[nextRecord].key : nil
                let deletedKey = nextDeleted < deleted.count ? deleted[nextDeleted] : nil
                let key: [UInt8]
                var record: StoredRecord?
                if let recordKey, deletedKey.map({ ![UInt8].keyPrecedes($0, recordKey) }) ?? true {
                    key = recordKey
                    record = records[nextRecord].record
                } else if let deletedKey {
                    key = deletedKey
                } else {
                    break
                }
                var found: [DamagedRow] = []
                let share = try snapshotShare(key, record: record, driver: driver, damaged: &found)
                let size = (share.row?.encodedSize ?? 0) + share.tombstones.reduce(0) { $0 + ReconcileResponse.encodedSize(of: $1) }
                let cost = (share.row?.decodeExcess ?? 0) + share.tombstones.reduce(0) { $0 + ReconcileResponse.decodeExcess(of: $1) }
                var named = share.row.map(DeviceTally.devices(of:)) ?? []
                for tombstone in share.tombstones { named.formUnion(DeviceTally.devices(of: tombstone)) }
                if covered > 0, bytes + size > maxBytes || excess + cost > ReconcileResponse.decodeExcessPerFrame || !tally.admits(named) {
                    full = true
                    break
                }
                if record != nil { nextRecord += 1 }
                if deletedKey == key { nextDeleted += 1 }
                covered += 1
                lastKey = key
                bytes += size
                excess += cost
                tally.add(named)
                damaged += found
                if let row = share.row { rows.append(row) }
                tombstones += share.tombstones
                if share.row == nil && share.tombstones.isEmpty { leftOut += 1 }
            }
            let exhausted = !full && nextRecord == records.count && records.count < limit
                && nextDeleted == deleted.count && deleted.count < limit
            return SnapshotPage(response: ReconcileResponse(namespace: driver.name, rows: rows, tombstones: tombstones),
                                lastKey: lastKey, isLast: exhausted, keysLeftOut: leftOut)
        }
        return (page, damaged)
    }

    /// One key's share of a snapshot: its visible row as the ship path ships it (vectors, kept
    /// concurrent versions, creation dimension; none for a device-derived or damaged row, the
    /// latter going to `damaged`) and its delete versions (damaged kept versions go to `damaged`).
    private func snapshotShare(_ key: [UInt8], record: StoredRecord?, driver: NamespaceDriver,
                               damaged: inout [DamagedRow]) throws(SyncKernelError) -> (row: ShippedRow?, tombstones: [Tombstone]) {
        if let record, record.leaf == nil { return (nil, []) }
        let kept = driver.isCausal ? try books.keptVersions(key, driver: driver, damaged: &damaged) : []
        let tombstones = kept.filter { !$0.isLive }.map { Tombstone(key: key, vector: $0.vector) }
        guard let record, let leaf = record.leaf else { return (nil, tombstones) }
        let version: RowVersion?
        switch StoredRowCheck.visible(key, record, driver: driver) {
        case .usable(let usable):
            version = usable.version
        case .damaged(let reason):
            damaged.append(DamagedRow(namespace: driver.name, key: key, row: record.row, reason: reason))
            return (nil, tombstones)
        }
        guard driver.isCausal else { return (ShippedRow(row: record.row, vector: nil), []) }
        let vector = version?.vector ?? VersionVector()
        let content = version?.contentVector ?? vector
        let siblings = kept.compactMap { sibling in sibling.row.map { ShippedRow(row: $0, vector: sibling.vector) } }
        let row = ShippedRow(row: record.row, vector: vector, contentVector: content == vector ? nil : content, siblings: siblings,
                             creation: DeviceID.creation(key: key, leaf: leaf))
        return (row, tombstones)
    }
}
