/// A decoded row together with what the kernel derives from it.
///
/// Invariant: every row the store writes or merges was inspected, so its key is at most
/// `maxKeyBytes` long (the namespace structure's sketch items carry keys up to that length).
package struct InspectedRow: Sendable {
    /// The longest row key the kernel stores: a save of a longer key is refused with
    /// `rowRejected`, a shipped or stored row with one with `limitExceeded`.
    static let maxKeyBytes = SketchItem.maxKeyBytes
    /// The longest row encoding the kernel stores or ships: 15 MiB, so a row too large for a
    /// shared frame travels alone in one within `SyncFrame.maxFrameBytes` with a megabyte and more
    /// to spare for its vectors (`docs/hardening.md`, "Decoding memory"). A save of a longer row is
    /// refused with `rowRejected`, a shipped or stored one with `limitExceeded`.
    package static let maxRowBytes = 15 << 20

    let key: [UInt8]
    let bytes: [UInt8]
    let leaf: Leaf
    let leafEncoding: [UInt8]
    let stamp: Int64?
    /// Device-derived rows are stored but never hashed, shipped or accepted from a sibling.
    let isDeviceDerived: Bool
    private let row: any Sendable

    init<N: SyncNamespace>(row: N.Row, namespace: N.Type, stamp: Int64?) {
        self.init(row: row, schema: N.schema, namespace: N.self, stamp: stamp)
    }

    /// Inspects `row` through `schema` (the namespace's, read once by the caller: each read of
    /// `N.schema` copies the declaration's closures).
    private init<N: SyncNamespace>(row: N.Row, schema: RowSchema<N.Row>, namespace: N.Type, stamp: Int64?) {
        self.row = row
        key = schema.key(of: row)
        bytes = schema.encodeRow(row)
        leafEncoding = schema.encodeLeaf(row)
        leaf = Leaf(key: key, hash: SHA256.hash(domain: N.leafDomain, leafEncoding))
        self.stamp = stamp
        isDeviceDerived = N.isDeviceDerived(row)
    }

    /// Inspects a row a local write is about to save, refusing it unless it round-trips: its
    /// bytes decode through the namespace's own decoder (so `validate` accepts it), re-encode to
    /// the same bytes, and the decoded row has the same leaf. A namespace bug then surfaces as a
    /// typed error at the save, never as a stored row the store cannot read back.
    ///
    /// A schema whose every field has a standard codec and its own leaf item (`RowSchema.checkRow`)
    /// is checked without the round trip: each value is checked where its codec's reader would
    /// refuse it, then `validate` runs on the row, which is what the decode would have found
    /// (the standard codecs read back what they write, to the same bytes and leaf item). Rows
    /// arriving from a sibling are always decoded in full (the receive path).
    init<N: SyncNamespace>(validating row: N.Row, namespace: N.Type, stamp: Int64?) throws(SyncKernelError) {
        let schema = N.schema
        self.init(row: row, schema: schema, namespace: N.self, stamp: stamp)
        guard key.count <= InspectedRow.maxKeyBytes else {
            throw SyncKernelError(.rowRejected, "\(N.name): a row key longer than \(InspectedRow.maxKeyBytes) bytes")
        }
        guard bytes.count <= InspectedRow.maxRowBytes else {
            throw SyncKernelError(.rowRejected, "\(N.name): a row encoding longer than \(InspectedRow.maxRowBytes) bytes")
        }
        if let checkRow = schema.checkRow {
            do {
                try checkRow(row)
            } catch {
                throw SyncKernelError(.rowRejected, "\(N.name): the namespace cannot read this row back (\(error.code.rawValue) \(error.detail))")
            }
            return
        }
        let decoded: N.Row
        do {
            decoded = try schema.decodeRow(CBORReader.decode(bytes))
        } catch {
            throw SyncKernelError(.rowRejected, "\(N.name): the namespace cannot read this row back (\(error.code.rawValue) \(error.detail))")
        }
        guard schema.encodeRow(decoded) == bytes else {
            throw SyncKernelError(.rowRejected, "\(N.name): the row does not re-encode to the same bytes")
        }
        guard schema.encodeLeaf(decoded) == leafEncoding else {
            throw SyncKernelError(.rowRejected, "\(N.name): the row read back has another leaf")
        }
    }

    func typedRow<N: SyncNamespace>(_ namespace: N.Type) throws(SyncKernelError) -> N.Row {
        guard let typed = row as? N.Row else { throw SyncKernelError(.unexpectedType, "row of another namespace") }
        return typed
    }
}
