import SQLiteStore

/// The store's record of the device epoch its local writes count under and of the evidence of its
/// own continuity (the kernel table `sk_device`, one row), and the check that compares that
/// record with the file the store was opened from.
///
/// Invariants: the only code that touches `sk_device`; the record names the device, its epoch
/// (number and nonce), the database file's identity when it was recorded, the current lease and
/// the local writes committed under it, and is written in the transaction that takes an epoch.
/// `discontinuity` answers from evidence only: a plain reopen of the same file, with its lease
/// file beside it, finds none.
struct EpochLedger {
    /// The stored record.
    struct Record {
        /// The epoch local writes count under.
        let epoch: DeviceEpoch
        /// The database file's identity when the epoch was recorded (nil for an in-memory store).
        let identity: FileIdentity?
        /// The lease, also in the lease file beside the database.
        let lease: [UInt8]
        /// Local writes committed under the lease.
        let writes: UInt64
    }

    let db: SQLiteConnection<SyncKernelError>
    /// The database's path; nil for an in-memory store, which keeps no file evidence.
    let path: String?

    static let schema = """
        CREATE TABLE IF NOT EXISTS sk_device(
            slot INTEGER PRIMARY KEY CHECK(slot = 0), device BLOB NOT NULL, epoch INTEGER NOT NULL, nonce BLOB NOT NULL,
            volume INTEGER, inode INTEGER, lease BLOB NOT NULL, writes INTEGER NOT NULL);
        """

    /// The stored record, if any (a store opened by a device for the first time has none).
    func record() throws(SyncKernelError) -> Record? {
        let statement = try db.statement("SELECT device, epoch, nonce, volume, inode, lease, writes FROM sk_device WHERE slot = 0")
        let stored = try statement.first { row in
            (device: row.blob(0), epoch: UInt64(bitPattern: row.int64(1)), nonce: row.blob(2),
             identity: row.isNull(3) || row.isNull(4)
                 ? nil : FileIdentity(volume: UInt64(bitPattern: row.int64(3)), inode: UInt64(bitPattern: row.int64(4))),
             lease: row.blob(5), writes: UInt64(bitPattern: row.int64(6)))
        }
        guard let stored else { return nil }
        guard let device = try? DeviceID(publicKey: stored.device) else {
            throw SyncKernelError(.corruptBookkeeping, "unreadable device epoch")
        }
        return Record(epoch: DeviceEpoch(device: device, number: stored.epoch, nonce: stored.nonce), identity: stored.identity,
                      lease: stored.lease, writes: stored.writes)
    }

    /// Stores `record` (the caller runs it inside a transaction).
    func store(_ record: Record) throws(SyncKernelError) {
        let statement = try db.statement("""
            INSERT OR REPLACE INTO sk_device(slot, device, epoch, nonce, volume, inode, lease, writes) VALUES(0, ?, ?, ?, ?, ?, ?, ?)
            """)
        statement.bind(1, record.epoch.device.publicKey).bind(2, Int64(bitPattern: record.epoch.number)).bind(3, record.epoch.nonce)
        if let identity = record.identity {
            statement.bind(4, Int64(bitPattern: identity.volume)).bind(5, Int64(bitPattern: identity.inode))
        } else {
            statement.bind(4, .null).bind(5, .null)
        }
        try statement.bind(6, record.lease).bind(7, Int64(bitPattern: record.writes)).run()
    }

    /// Counts one committed local write under the lease (inside the write's transaction);
    /// returns the lease and the new count, nil when there is no record.
    func countWrite() throws(SyncKernelError) -> (lease: [UInt8], writes: UInt64)? {
        try db.statement("UPDATE sk_device SET writes = writes + 1 WHERE slot = 0").run()
        return try db.statement("SELECT lease, writes FROM sk_device WHERE slot = 0").first {
            ($0.blob(0), UInt64(bitPattern: $0.int64(1)))
        }
    }

    /// The evidence that this store, about to count writes as `device`, may not hold everything
    /// the device counted before; nil when it can vouch for it.
    ///
    /// In order: the lease file says the store was restored; with no record, a lease file of
    /// any kind (a database at this path kept a lease, this one never did); a record of another
    /// device; another file identity; a missing or unreadable lease file; another lease; more
    /// writes counted in the lease file than in the database. An in-memory store has no file
    /// evidence: only a change of device counts.
    func discontinuity(of record: Record?, for device: DeviceID) -> EpochReason? {
        guard let path else {
            return record.map { $0.epoch.device == device ? nil : .deviceChanged } ?? nil
        }
        let side = LeaseFile.read(store: path)
        if side == .restored { return .markedRestored }
        guard let record else { return side == .missing ? nil : .leaseMismatch }
        if record.epoch.device != device { return .deviceChanged }
        if record.identity != FileIdentity(path: path) { return .fileIdentityChanged }
        switch side {
        case .missing, .unreadable, .restored:
            return .leaseMissing
        case .lease(let lease, let writes):
            if lease != record.lease { return .leaseMismatch }
            return writes > record.writes ? .writesMissing : nil
        }
    }
}
