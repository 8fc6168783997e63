/// The handle a local write receives: reads and writes rows of one namespace inside one transaction.
///
/// Invariants: every save is validated first (the row must read back through the namespace's own
/// decoder to the same bytes and leaf; otherwise `rowRejected` and, since the write's transaction
/// rolls back, nothing of the write is stored); every save passes through RowClock (causal
/// namespaces bump on a changed stamp or a changed leaf) and through the kernel's single
/// `RowWriter`; saving bytes identical to the stored row writes nothing. A stored row a read
/// finds damaged (it does not decode, or decodes to another key) is quarantined in this write's
/// transaction, so it is set aside exactly when the write commits. A local save, delete or
/// resolve of a causal key supersedes every version the key holds, so it resolves an open
/// conflict (reported in `WriteOutcome.resolvedConflicts`); `resolve` does so only over the
/// versions the app saw. Valid only inside the `KernelStore.write` call that created it.
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
    /// offloaded note that still holds a body, a value a custom codec cannot read back),
    /// `notTheAuthor` when it holds an operation the namespace's rules refuse
    /// (`SyncNamespace.refusedOperations(in:)`: an edit by an account that is not the author), and
    /// `operationNotSupportedByRule` when it would change the leaf of a row an `.insertIfAbsent`
    /// namespace already holds (its rows are immutable: siblings would keep the old one forever)
    /// or turn a synced row device-derived or back (a key is one or the other for life).
    public func save(_ row: N.Row) throws(SyncKernelError) {
        let inspected = try InspectedRow(validating: row, namespace: N.self, stamp: nil)
        guard N.refusedOperations(in: row) == 0 else {
            throw SyncKernelError(.notTheAuthor, "\(N.name): an operation only the row's author may make")
        }
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
        let before = try writer.item(N.name, inspected.key)
        if case .causal(let changeStamp, _, _) = N.mergeRule.kind, !inspected.isDeviceDerived {
            let observed = try rowClock.observe(N.name, key: inspected.key, version: try stored?.version(), stamp: changeStamp(row),
                                                leaf: inspected.leaf.hash, leafChanged: stored?.leaf != inspected.leaf.hash)
            version = observed.version
            if observed.resolved { writer.noteResolved(N.name, inspected.key) }
        }
        // A local edit (a version to store) superseded and removed every other version of the key.
        try writer.put(N.name, row: inspected, version: version, replacing: before, keepsNoVersions: version != nil)
    }

    /// The live versions of `key` (causal namespaces): the visible row first, then the concurrent
    /// versions the merge kept beside it, each with the vector of its write and the device that
    /// wrote it; empty when no live row is held, one when the key keeps no concurrent write (of any content). Damaged
    /// entries are quarantined in this write's transaction and left out. Throws
    /// `operationNotSupportedByRule` for a namespace that keeps no versions.
    public func versions(forKey key: [UInt8]) throws(SyncKernelError) -> [KeyVersion<N.Row>] {
        guard driver.isCausal else { throw SyncKernelError(.operationNotSupportedByRule, "\(N.name) keeps no versions") }
        let (versions, damaged) = try KeyVersions.live(key, driver: driver, books: writer.books)
        for damage in damaged { try writer.quarantine(damage, site: .read) }
        return try KeyVersions.decoded(versions, as: N.self)
    }

    /// Resolves a conflict: saves `row` (the version the app picked, or one it composed) as a
    /// write that dominates every version in `seen` (what the app read with `versions(forKey:)`
    /// or `KernelStore.versions`), so on every device that merges it those versions disappear.
    ///
    /// Refuses with `conflictChanged`, writing nothing, when the live versions held now are not
    /// exactly those of `seen` (a merge brought another concurrent version since the app read
    /// them, or one of `seen` was replaced): the app reads again and decides again, so a resolve
    /// never supersedes a version nobody saw. The write is an edit even when `row` is the
    /// visible row unchanged (picking the visible version still dominates the others), it counts
    /// as this device's write (`RowVersion.writer`), and it reports the key in
    /// `WriteOutcome.resolvedConflicts` when the key was in conflict. Throws
    /// `operationNotSupportedByRule` for a namespace that keeps no versions or a device-derived row.
    public func resolve(_ row: N.Row, over seen: [KeyVersion<N.Row>]) throws(SyncKernelError) {
        guard case .causal(let changeStamp, _, _) = N.mergeRule.kind else {
            throw SyncKernelError(.operationNotSupportedByRule, "\(N.name) keeps no versions")
        }
        let inspected = try InspectedRow(validating: row, namespace: N.self, stamp: nil)
        guard !inspected.isDeviceDerived else {
            throw SyncKernelError(.operationNotSupportedByRule, "\(N.name): a device-derived row has no versions")
        }
        guard seen.allSatisfy({ $0.key == inspected.key }) else {
            throw SyncKernelError(.conflictChanged, "\(N.name): a version seen of another key")
        }
        let held = try versions(forKey: inspected.key)
        guard Set(held.map(\.vector)) == Set(seen.map(\.vector)), held.count == seen.count else {
            throw SyncKernelError(.conflictChanged, "\(N.name): the versions held are not the versions seen")
        }
        let stored = try writer.storedRecord(N.name, inspected.key)
        if stored != nil, try writer.leafHash(N.name, inspected.key) == nil {
            throw SyncKernelError(.operationNotSupportedByRule, "\(N.name): a key is synced or device-derived for life")
        }
        let before = try writer.item(N.name, inspected.key)
        let observed = try rowClock.observe(N.name, key: inspected.key, version: try stored?.version(), stamp: changeStamp(row),
                                            leaf: inspected.leaf.hash, leafChanged: stored?.leaf != inspected.leaf.hash, force: true)
        if observed.resolved { writer.noteResolved(N.name, inspected.key) }
        try writer.put(N.name, row: inspected, version: observed.version, replacing: before, keepsNoVersions: observed.version != nil)
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
        let before = try writer.item(N.name, key)
        if try rowClock.observeDelete(N.name, key: key) { writer.noteResolved(N.name, key) }
        try writer.remove(N.name, key: key, replacing: before)
    }
}
