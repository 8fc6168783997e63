/// A read-only connection's half of a whole-store snapshot: the pages `SnapshotExporter` reads
/// beside a running device.
extension StoreReadConnection: SnapshotPageSource {
    /// The snapshot page of `namespace` after `cursor`, as `SnapshotPager.page` reads it, damaged
    /// entries left out; `unknownNamespace` for a namespace not in `namespaces`.
    package func snapshotPage(namespace: String, after cursor: [UInt8]?, maxKeys: Int,
                              maxBytes: Int) throws(SyncKernelError) -> SnapshotPage {
        try SnapshotPager(db: db, books: books)
            .page(namespaces.driver(named: namespace), after: cursor, maxKeys: maxKeys, maxBytes: maxBytes).page
    }
}
