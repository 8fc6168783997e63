/// The one place every write to a namespace's rows goes through, local saves and merge applies alike.
///
/// Invariants: a row write and its leaf change are staged together inside the caller's
/// transaction; the leaf changes reach the in-memory `LeafIndex` only after the transaction
/// commits (`KernelStore` applies them), so a rolled-back write leaves no trace in the digest.
/// `stagedLeaves` lists every staged change in write order and `latestStaged` holds the last
/// one per (namespace, key), so `leafHash` costs O(1) however many rows the transaction writes.
/// Any structure that must follow the rows (a persisted tree, a change feed) hooks in here.
final class RowWriter {
    /// A row's identity across the namespaces one transaction may touch.
    private struct StagedKey: Hashable {
        /// The namespace the row belongs to.
        let namespace: String
        /// The row's key.
        let key: [UInt8]
    }

    let books: Bookkeeping
    private let committedLeaf: (_ namespace: String, _ key: [UInt8]) -> [UInt8]?
    private(set) var stagedLeaves: [(namespace: String, key: [UInt8], hash: [UInt8]?)] = []
    /// The last staged leaf hash of each staged row (nil: its leaf is staged for removal).
    private var latestStaged: [StagedKey: [UInt8]?] = [:]
    private(set) var rowsWritten = 0

    init(books: Bookkeeping, committedLeaf: @escaping (_ namespace: String, _ key: [UInt8]) -> [UInt8]?) {
        self.books = books
        self.committedLeaf = committedLeaf
    }

    /// The leaf hash of row `key` as this transaction sees it (staged changes first), without
    /// reading or decoding the row.
    func leafHash(_ namespace: String, _ key: [UInt8]) -> [UInt8]? {
        if let staged = latestStaged[StagedKey(namespace: namespace, key: key)] { return staged }
        return committedLeaf(namespace, key)
    }

    /// Stores `row` in `namespace` and stages its leaf (a device-derived row stages no leaf).
    func put(_ namespace: String, row: InspectedRow) throws(SyncKernelError) {
        let leaf = row.isDeviceDerived ? nil : row.leaf.hash
        try books.putRow(namespace, row.key, row.bytes, leaf: leaf)
        stage(namespace, row.key, leaf)
    }

    /// Deletes the row `key` of `namespace` and stages the removal of its leaf.
    func remove(_ namespace: String, key: [UInt8]) throws(SyncKernelError) {
        try books.removeRow(namespace, key)
        stage(namespace, key, nil)
    }

    /// Records one leaf change in write order and as the row's latest staged leaf.
    private func stage(_ namespace: String, _ key: [UInt8], _ hash: [UInt8]?) {
        stagedLeaves.append((namespace, key, hash))
        latestStaged[StagedKey(namespace: namespace, key: key)] = .some(hash)
        rowsWritten += 1
    }
}
