/// A decoded row together with what the kernel derives from it.
struct InspectedRow: Sendable {
    let key: [UInt8]
    let bytes: [UInt8]
    let leaf: Leaf
    let leafEncoding: [UInt8]
    let stamp: Int64?
    /// Device-derived rows are stored but never hashed, shipped or accepted from a sibling.
    let isDeviceDerived: Bool
    private let row: any Sendable

    init<N: SyncNamespace>(row: N.Row, namespace: N.Type, stamp: Int64?) {
        self.row = row
        key = N.key(of: row)
        bytes = N.rowEncoding(of: row)
        leafEncoding = N.leafEncoding(of: row)
        leaf = Leaf(key: key, hash: SHA256.hash(domain: N.leafDomain, leafEncoding))
        self.stamp = stamp
        isDeviceDerived = N.isDeviceDerived(row)
    }

    func typedRow<N: SyncNamespace>(_ namespace: N.Type) throws(SyncKernelError) -> N.Row {
        guard let typed = row as? N.Row else { throw SyncKernelError(.unexpectedType, "row of another namespace") }
        return typed
    }
}
