/// What an app reads of one namespace inside one read transaction (`StoreReadConnection.read`):
/// a row by key, pages of rows in key order (all, those with a key prefix, or those in a key
/// range), the row count,
/// the keys in conflict, and the change feed (`changes(after:limit:)`).
///
/// Invariants: everything read through one reader comes from one committed state of the store
/// (the transaction `read` opened), whatever a writer commits meanwhile; nothing is written (a
/// damaged row reads as absent and is skipped in pages, for the device's own connection to
/// quarantine); no call reads more rows than its `limit` (at most `maxPageRows`), so no call
/// loads a whole namespace. Valid only inside the `read` body it was given to.
public struct NamespaceReader<N: SyncNamespace> {
    /// The most rows one page returns.
    public static var maxPageRows: Int { 10_000 }

    let books: Bookkeeping
    /// Whether the store holds the change log (read once, with the transaction's tables).
    let hasChangeLog: Bool

    /// The row stored under `key`, nil when there is none (or it is damaged).
    public func row(forKey key: [UInt8]) throws(SyncKernelError) -> N.Row? {
        guard let bytes = try books.row(N.name, key) else { return nil }
        return Self.usable(key, bytes)
    }

    /// Up to `limit` rows in key order after key `after` (from the first key when nil).
    /// `limit` is clamped to `1...maxPageRows`.
    public func rows(after: [UInt8]? = nil, limit: Int) throws(SyncKernelError) -> RowPage<N.Row> {
        try page(after: after, from: nil, below: nil, limit: limit)
    }

    /// Up to `limit` rows whose key starts with `prefix`, in key order, after key `after` (from
    /// the first such key when nil); an empty prefix reads every row.
    public func rows(withPrefix prefix: [UInt8], after: [UInt8]? = nil, limit: Int) throws(SyncKernelError) -> RowPage<N.Row> {
        try page(after: after, from: prefix.isEmpty ? nil : prefix, below: KeyRange.prefixEnd(prefix), limit: limit)
    }

    /// Up to `limit` rows whose key lies in the half-open range from `start` (included) to `end`
    /// (excluded; nil: to the last key), in key order, after key `after` (from `start` when nil).
    /// A range whose `end` is not above `start` holds no row.
    public func rows(from start: [UInt8], below end: [UInt8]?, after: [UInt8]? = nil, limit: Int) throws(SyncKernelError) -> RowPage<N.Row> {
        if let end, ![UInt8].keyPrecedes(start, end) { return RowPage(rows: [], next: nil) }
        return try page(after: after, from: start.isEmpty ? nil : start, below: end, limit: limit)
    }

    /// The number of rows the namespace stores.
    public func count() throws(SyncKernelError) -> Int {
        try books.rowCount(N.name)
    }

    /// The keys whose versions are in conflict (concurrent versions kept beside the row), in
    /// key order.
    public func conflictKeys() throws(SyncKernelError) -> [[UInt8]] {
        try books.openConflicts(N.name)
    }

    /// Up to `limit` changes numbered after `cursor` (0: from the first), in number order, each
    /// with the key's row now: the change feed. A consumer that stores the last `cursor` it
    /// applied (with its own data, in its own transaction) and reads on from it after a crash
    /// misses no change and, applying each as an upsert or delete of the key, ends equal to the
    /// store. `limit` is clamped to `1...maxPageRows`. A store no device of this build has opened
    /// yet has no change log: its feed is empty until one does (and then holds every row).
    public func changes(after cursor: UInt64, limit: Int) throws(SyncKernelError) -> [RowChange<N.Row>] {
        guard hasChangeLog else { return [] }
        let limit = min(max(1, limit), Self.maxPageRows)
        let after = Int64(clamping: cursor)
        return try books.changes(N.name, after: after, limit: limit).map { (entry) throws(SyncKernelError) in
            let row = try books.row(N.name, entry.key).flatMap { Self.usable(entry.key, $0) }
            return RowChange(key: entry.key, row: row, inConflict: try books.isInConflict(N.name, entry.key), origin: entry.origin,
                             cursor: UInt64(entry.sequence))
        }
    }

    /// The number of the last change committed to any namespace of the store (0 before any): a
    /// consumer starting now reads on from here.
    public func lastChange() throws(SyncKernelError) -> UInt64 {
        guard hasChangeLog else { return 0 }
        return UInt64(max(0, try books.lastChangeSequence()))
    }

    /// Whether a change numbered after `cursor` touched a key of `region` (false for a store with
    /// no change log yet).
    package func hasChanges(in region: ObservedRegion, after cursor: UInt64) throws(SyncKernelError) -> Bool {
        guard hasChangeLog else { return false }
        let (start, end) = region.bounds
        return try books.hasChanges(N.name, after: Int64(clamping: cursor), from: start, below: end)
    }

    private func page(after: [UInt8]?, from start: [UInt8]?, below end: [UInt8]?, limit: Int) throws(SyncKernelError) -> RowPage<N.Row> {
        let limit = min(max(1, limit), Self.maxPageRows)
        let stored = try books.keyedRows(N.name, after: after, from: start, below: end, limit: limit)
        let rows = stored.compactMap { key, bytes in Self.usable(key, bytes).map { (key: key, row: $0) } }
        return RowPage(rows: rows, next: stored.count < limit ? nil : stored.last?.key)
    }

    private static func usable(_ key: [UInt8], _ bytes: [UInt8]) -> N.Row? {
        switch StoredRowCheck.read(key, bytes, as: N.self) {
        case .usable(let row): row
        case .damaged: nil
        }
    }
}
