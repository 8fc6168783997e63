/// The handle a local write receives: reads and writes rows of one namespace inside one transaction.
///
/// Invariants: every save is validated first (the row must read back through the namespace's own
/// decoder to the same bytes and leaf; otherwise `rowRejected` and, since the write's transaction
/// rolls back, nothing of the write is stored); every save passes through RowClock (causal
/// namespaces bump on a changed stamp or a changed leaf) and through the kernel's single
/// `RowWriter`; saving bytes identical to the stored row writes nothing. A stored row a read
/// finds damaged (it does not decode, or decodes to another key) is quarantined in this write's
/// transaction, so it is set aside exactly when the write commits. Valid only inside the
/// `KernelStore.write` call that created it.
public struct NamespaceTransaction<N: SyncNamespace> {
    let writer: RowWriter
    let rowClock: RowClock
    let driver: NamespaceDriver

    /// The stored row with `key`, if any; a damaged one is quarantined and reads as none.
    public func row(forKey key: [UInt8]) throws(SyncKernelError) -> N.Row? {
        guard let bytes = try writer.books.row(N.name, key) else { return nil }
        return try usable(key, bytes)
    }

    /// Every stored row of the namespace, in key order; damaged ones are quarantined and left out.
    public func allRows() throws(SyncKernelError) -> [N.Row] {
        var rows: [N.Row] = []
        for (key, bytes) in try writer.books.keyedRows(N.name) {
            if let row = try usable(key, bytes) { rows.append(row) }
        }
        return rows
    }

    /// The stored `bytes` of `key` decoded, or nil after quarantining them when they do not read back.
    private func usable(_ key: [UInt8], _ bytes: [UInt8]) throws(SyncKernelError) -> N.Row? {
        switch StoredRowCheck.read(key, bytes, as: N.self) {
        case .usable(let row):
            return row
        case .damaged(let reason):
            try writer.quarantine(DamagedRow(namespace: N.name, key: key, row: bytes, reason: reason), site: .read)
            return nil
        }
    }

    /// Whether this device holds a delete of `key` that no live version survived: a pass that
    /// imports from a local source asks before re-creating a row the account deleted.
    public func isDeleted(key: [UInt8]) throws(SyncKernelError) -> Bool {
        guard try writer.books.row(N.name, key) == nil else { return false }
        return try writer.books.versions(N.name, key).contains { !$0.isLive }
    }

    /// Saves `row` (insert or replace by its key).
    ///
    /// Throws `rowRejected` when the row does not round-trip through the namespace's decoder (an
    /// offloaded note that still holds a body, a value a custom codec cannot read back), and
    /// `operationNotSupportedByRule` when it would change the leaf of a row an `.insertIfAbsent`
    /// namespace already holds (its rows are immutable: siblings would keep the old one forever)
    /// or turn a synced row device-derived or back (a key is one or the other for life).
    public func save(_ row: N.Row) throws(SyncKernelError) {
        let inspected = try InspectedRow(validating: row, namespace: N.self, stamp: nil)
        let stored = try writer.storedRecord(N.name, inspected.key)
        guard stored?.row != inspected.bytes else { return }
        if stored != nil {
            let storedLeaf = try writer.leafHash(N.name, inspected.key)
            guard (storedLeaf == nil) == inspected.isDeviceDerived else {
                throw SyncKernelError(.operationNotSupportedByRule, "\(N.name): a key is synced or device-derived for life")
            }
            if case .insertIfAbsent = N.mergeRule.kind, let storedLeaf, storedLeaf != inspected.leaf.hash {
                throw SyncKernelError(.operationNotSupportedByRule, "\(N.name): insert-if-absent rows are immutable once written")
            }
        }
        var version: RowVersion?
        if case .causal(let changeStamp, _, _) = N.mergeRule.kind, !inspected.isDeviceDerived {
            version = try rowClock.observe(N.name, key: inspected.key, version: try stored?.version(), stamp: changeStamp(row),
                                           leaf: inspected.leaf.hash, leafChanged: stored?.leaf != inspected.leaf.hash)
        }
        try writer.put(N.name, row: inspected, version: version)
    }

    /// Deletes the row with `key`.
    ///
    /// A device-derived row (one stored with no leaf) is simply removed (it was never synced).
    /// Any other row needs a causal namespace and leaves a tombstone under the row's bumped
    /// vector: append-only, monotone, fold and single-writer rules express removal in their own
    /// data, so they get `operationNotSupportedByRule`. The stored row is not decoded, so a
    /// damaged one is deleted like any other.
    public func delete(key: [UInt8]) throws(SyncKernelError) {
        guard let stored = try writer.storedRecord(N.name, key) else { return }
        if stored.leaf == nil {
            try writer.remove(N.name, key: key)
            return
        }
        guard driver.isCausal else { throw SyncKernelError(.operationNotSupportedByRule, N.name) }
        try rowClock.observeDelete(N.name, key: key)
        try writer.remove(N.name, key: key)
    }
}
