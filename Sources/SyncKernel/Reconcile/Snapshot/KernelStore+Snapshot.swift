/// The kernel's half of a whole-store snapshot: paging a namespace out as `reconcile_resp`
/// shares, and importing such pages insert-if-absent.
///
/// Invariants: a page is read in one read transaction and holds every key's whole share (row,
/// vectors, kept concurrent versions, deletes), checked by `StoredRowCheck` as the ship path
/// checks it (a damaged row is left out and quarantined once the page is read, as `respond`
/// does); device-derived rows are never paged out. An import runs in one transaction through the
/// store's single `RowWriter`, so rows and structure move together; it writes a key only when the
/// store holds nothing under it (no row, no kept version), merging the key's versions exactly as
/// `apply` merges them into a key with no local versions, and leaves every other key alone, so
/// importing the same pages again changes nothing.
extension KernelStore {
    /// The page of `namespace` after key `cursor` (from its first key when nil): the shares of at
    /// most `maxKeys` consecutive keys, stopping before a key whose share would take the page past
    /// `maxBytes` of estimated wire bytes, `ReconcileResponse.decodeExcessPerFrame` of modelled
    /// decoding excess or `DeviceTable.maxDevices` devices named (`DeviceTally`; the first key
    /// always goes in).
    package func snapshotPage(namespace: String, after cursor: [UInt8]?, maxKeys: Int,
                              maxBytes: Int) throws(SyncKernelError) -> SnapshotPage {
        let (page, damaged) = try SnapshotPager(db: db, books: books)
            .page(namespaces.driver(named: namespace), after: cursor, maxKeys: maxKeys, maxBytes: maxBytes)
        try quarantine(damaged, site: .ship)
        return page
    }

    /// Imports snapshot pages insert-if-absent, all in one transaction: each key the pages carry
    /// (a shipped row with its delete versions, or delete versions alone) is stored when this
    /// store holds nothing under it and left alone otherwise (`keysPresent`); a key whose share
    /// does not read (a row the namespace refuses, a vector out of range, a sibling version of
    /// another key) is refused before anything of it is written (`keysRefused`), and the rest go
    /// on. A row whose bytes do not read cannot name its key: its delete versions, if any, are
    /// imported alone. Throws, writing nothing of the call, for an unknown namespace or a failure
    /// while writing (a namespace hook's error, SQLite). As `apply`, a vector that counts this
    /// device's current dimension takes a fresh epoch in the same transaction. `shouldStop` is asked
    /// before each page; once it answers true the call throws `snapshotStopped` and the
    /// transaction rolls back, so a stop waits for one page, never for a whole transaction.
    package func importAbsent(_ pages: [ReconcileResponse],
                              shouldStop: () -> Bool = { false }) throws(SyncKernelError) -> SnapshotImportOutcome {
        let writer = makeWriter()
        writer.origin = .imported
        let (counted, fresh) = try db.transaction { () throws(SyncKernelError) -> (SnapshotImportOutcome, EpochLedger.Record?) in
            var outcome = SnapshotImportOutcome()
            var ahead = false
            for page in pages {
                guard !shouldStop() else { throw SyncKernelError(.snapshotStopped, "the import stopped with its device") }
                let driver = try namespaces.driver(named: page.namespace)
                let merger = Merger(driver: driver, writer: writer, rowClock: RowClock(writer: writer, clock: clock))
                var deletes = driver.isCausal ? Dictionary(grouping: page.tombstones, by: \.key) : [:]
                func importKey(_ key: [UInt8], shipped: ShippedRow?, row: InspectedRow?, tombstones: [Tombstone]) throws(SyncKernelError) {
                    guard try books.isAbsent(driver.name, key) else {
                        outcome.keysPresent += 1
                        return
                    }
                    let absent: Merger.AbsentKey
                    do {
                        absent = try merger.prepareAbsent(key: key, shipped: shipped, row: row, tombstones: tombstones)
                    } catch {
                        outcome.keysRefused += 1
                        return
                    }
                    let merged = try merger.insertAbsent(absent)
                    outcome.keysImported += 1
                    if merged.changed { outcome.rowsImported += 1 }
                    outcome.deletesImported += tombstones.count
                    if merged.aheadOfStore { ahead = true }
                }
                for shipped in page.rows {
                    let row: InspectedRow
                    do {
                        row = try driver.inspect(shipped.row)
                    } catch {
                        outcome.keysRefused += 1
                        continue
                    }
                    try importKey(row.key, shipped: shipped, row: row, tombstones: deletes.removeValue(forKey: row.key) ?? [])
                }
                for key in deletes.keys.sorted(by: [UInt8].keyPrecedes) {
                    try importKey(key, shipped: nil, row: nil, tombstones: deletes[key] ?? [])
                }
            }
            try persist(writer)
            var fresh: EpochLedger.Record?
            if ahead, let device = clock.device {
                let record = nextRecord(device: device, after: try ledger.record())
                try ledger.store(record)
                fresh = record
            }
            return (outcome, fresh)
        }
        adopt(writer)
        var outcome = counted
        if let fresh {
            let change = EpochChange(reason: .peerEvidence, epoch: fresh.epoch)
            try settle(fresh, change: change, strict: false)
            outcome.epochChange = change
        }
        return outcome
    }
}
