import SyncKernel

/// A store's snapshot as a plaintext stream (`SnapshotFormat`): the header, every namespace's
/// pages in name order, the trailer. Each `next()` reads one page from the store.
///
/// Invariants: holds one page at a time (bounded by `pageKeys` and `pageBytes`), so a store of a
/// million rows is never held whole; every key of every namespace is visited once, in key order,
/// its share whole in one page (`KernelStore.snapshotPage`); device-derived and damaged rows are
/// left out (the latter quarantined, as the ship path does); the trailer's counts are exactly the
/// pages, rows and delete versions yielded. Reads the store between calls, so a write made while
/// a snapshot is being read may or may not be in it (each key as it stood when its page was
/// read); the digest loop brings the rest. Not `Sendable`: it uses the store its owner uses.
public struct SnapshotExporter: ByteSource {
    private let store: any SnapshotPageSource
    private let account: [UInt8]
    private let pageKeys: Int
    private let pageBytes: Int
    private var namespaceIndex = 0
    private var cursor: [UInt8]?
    private var headerSent = false
    private var finished = false
    /// Pages yielded so far.
    public private(set) var pages: Int64 = 0
    /// Rows yielded so far.
    public private(set) var rows: Int64 = 0
    /// Delete versions yielded so far.
    public private(set) var deletes: Int64 = 0
    /// Keys left out so far (device-derived, or damaged and quarantined).
    public private(set) var keysLeftOut: Int64 = 0
    /// Plaintext bytes yielded so far.
    public private(set) var bytes: Int64 = 0
    /// Time spent reading and encoding pages.
    public private(set) var exportTime: Duration = .zero

    /// An exporter of `store` for `account` (this device's userIDHash, which every page names),
    /// in pages of at most `pageKeys` keys and about `pageBytes` bytes (at least 1 each).
    public init(store: KernelStore, account: [UInt8], pageKeys: Int = 4_096, pageBytes: Int = 1 << 20) {
        self.init(source: store, account: account, pageKeys: pageKeys, pageBytes: pageBytes)
    }

    /// An exporter of what `source` pages (a device's store, or a read-only connection beside it),
    /// otherwise as `init(store:account:pageKeys:pageBytes:)`.
    package init(source: any SnapshotPageSource, account: [UInt8], pageKeys: Int = 4_096, pageBytes: Int = 1 << 20) {
        self.store = source
        self.account = account
        self.pageKeys = max(1, pageKeys)
        self.pageBytes = max(1, pageBytes)
    }

    /// The next record: the header, then one page per call, then the trailer, then nil.
    public mutating func next() throws -> [UInt8]? {
        let started = ContinuousClock.now
        defer { exportTime += started.duration(to: .now) }
        guard headerSent else {
            headerSent = true
            return emit(SnapshotFormat.record(.header, SnapshotFormat.header(schema: store.namespaces.schema)))
        }
        let names = store.namespaces.names
        while namespaceIndex < names.count {
            let page = try store.snapshotPage(namespace: names[namespaceIndex], after: cursor, maxKeys: pageKeys, maxBytes: pageBytes)
            keysLeftOut += Int64(page.keysLeftOut)
            if page.isLast || page.lastKey == nil {
                namespaceIndex += 1
                cursor = nil
            } else {
                cursor = page.lastKey
            }
            guard !page.response.isEmpty else { continue }
            pages += 1
            rows += Int64(page.response.rows.count)
            deletes += Int64(page.response.tombstones.count)
            let frame = SyncFrame(account: account, schema: store.namespaces.schema, body: .reconcileResponse(page.response),
                                  compactVectors: true)
            return emit(SnapshotFormat.record(.page, frame.encoded()))
        }
        guard !finished else { return nil }
        finished = true
        return emit(SnapshotFormat.record(.trailer, SnapshotFormat.trailer(pages: pages, rows: rows, deletes: deletes)))
    }

    /// Counts `record` and returns it.
    private mutating func emit(_ record: [UInt8]) -> [UInt8] {
        bytes += Int64(record.count)
        return record
    }
}
