/// What a whole-store snapshot is paged from: a device's own store (`KernelStore`), or a
/// read-only connection beside it (`StoreReadConnection`), so an export need not hold the
/// device's store while it runs.
///
/// Implementation requirements: `snapshotPage` reads one page in one read transaction, exactly
/// as `SnapshotPager` pages it (every key's whole share, device-derived and damaged rows left
/// out), and pages of one namespace follow in key order from the cursor given.
package protocol SnapshotPageSource {
    /// The namespaces the snapshot covers, in the order it pages them.
    var namespaces: NamespaceSet { get }

    /// The page of `namespace` after key `cursor` (from its first key when nil), bounded as
    /// `SnapshotPager.page` bounds it.
    func snapshotPage(namespace: String, after cursor: [UInt8]?, maxKeys: Int, maxBytes: Int) throws(SyncKernelError) -> SnapshotPage
}

extension KernelStore: SnapshotPageSource {}
