/// The one place every write to a namespace's rows goes through, local saves and merge applies alike.
///
/// Invariants: a row write and its leaf change are staged together inside the caller's
/// transaction; the leaf changes reach the in-memory `LeafIndex` only after the transaction
/// commits (`KernelStore` applies them), so a rolled-back write leaves no trace in the digest.
/// Any structure that must follow the rows (a persisted tree, a change feed) hooks in here.
final class RowWriter {
    let books: Bookkeeping
    private let committedLeaf: (_ namespace: String, _ key: [UInt8]) -> [UInt8]?
    private(set) var stagedLeaves: [(namespace: String, key: [UInt8], hash: [UInt8]?)] = []
    private(set) var rowsWritten = 0

    init(books: Bookkeeping, committedLeaf: @escaping (_ namespace: String, _ key: [UInt8]) -> [UInt8]?) {
        self.books = books
        self.committedLeaf = committedLeaf
    }

    /// The leaf hash of row `key` as this transaction sees it (staged changes first), without
    /// reading or decoding the row.
    func leafHash(_ namespace: String, _ key: [UInt8]) -> [UInt8]? {
        if let staged = stagedLeaves.last(where: { $0.namespace == namespace && $0.key == key }) { return staged.hash }
        return committedLeaf(namespace, key)
    }

    /// Stores `row` in `namespace` and stages its leaf (a device-derived row stages no leaf).
    func put(_ namespace: String, row: InspectedRow) throws(SyncKernelError) {
        try books.putRow(namespace, row.key, row.bytes)
        stagedLeaves.append((namespace, row.key, row.isDeviceDerived ? nil : row.leaf.hash))
        rowsWritten += 1
    }

    /// Deletes the row `key` of `namespace` and stages the removal of its leaf.
    func remove(_ namespace: String, key: [UInt8]) throws(SyncKernelError) {
        try books.removeRow(namespace, key)
        stagedLeaves.append((namespace, key, nil))
        rowsWritten += 1
    }
}
