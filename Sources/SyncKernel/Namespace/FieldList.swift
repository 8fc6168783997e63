/// A declared list of fields over one value type and the operations derived from it.
///
/// Invariant: every operation visits the fields in declaration order, so the encodings it
/// writes are fixed by the declaration alone.
struct FieldList<Value: Sendable>: Sendable {
    let blank: Value
    let fields: [Field<Value>]
    /// Every field's row writer, in order (kept apart so writing a row copies no declaration).
    private let rowWriters: [@Sendable (Value, inout CanonicalWriter) -> Void]
    /// The hashed fields' leaf writers, in order.
    private let leafWriters: [@Sendable (Value, inout CanonicalWriter) -> Void]
    /// Every field's reader, in order (kept apart, like the writers, so reading a row neither
    /// copies a declaration nor walks a generic `zip` of them: both cost more than the reads).
    private let readers: [@Sendable (CBORValue, inout Value) throws(SyncKernelError) -> Void]

    /// A list over `fields`, whose absent values are those of `blank`.
    init(blank: Value, fields: [Field<Value>]) {
        self.blank = blank
        self.fields = fields
        rowWriters = fields.map(\.writeRow)
        leafWriters = fields.filter { $0.role == .hashed }.map(\.writeLeaf)
        readers = fields.map(\.read)
    }

    /// Writes every field's row item, in order.
    func writeRow(_ value: Value, into writer: inout CanonicalWriter) {
        for write in rowWriters { write(value, &writer) }
    }

    /// Writes the hashed fields' leaf items, in order.
    func writeLeaf(_ value: Value, into writer: inout CanonicalWriter) {
        for write in leafWriters { write(value, &writer) }
    }

    /// Reads `items` (one per field, paired in order; extra items on either side are not read)
    /// into a copy of `blank`.
    func read(_ items: ArraySlice<CBORValue>) throws(SyncKernelError) -> Value {
        var value = blank
        try Field<Value>.read(items, with: readers, into: &value)
        return value
    }

    /// The incoming value with this device's per-device and local-identifier fields kept from
    /// `local` (or reset to the blank value when there is no local copy): another device's view
    /// of such a field means nothing here.
    func adopt(_ incoming: Value, over local: Value?) -> Value {
        var kept = incoming
        for field in fields {
            guard case .excluded(let category, _) = field.role, category == .perDevice || category == .localIdentifier else {
                continue
            }
            field.copy(local ?? blank, &kept)
        }
        return kept
    }

    /// The local value with every merged field joined with the incoming one.
    func join(_ local: Value, _ incoming: Value) -> Value {
        var joined = local
        for field in fields { field.merge?(local, incoming, &joined) }
        return joined
    }

    /// The fields as the kernel and the kit see them, reached through `extract` and `embed`.
    func schemaFields<Row: Sendable>(variant: String?, extract: @escaping @Sendable (Row) -> Value?,
                                     embed: @escaping @Sendable (Value) -> Row) -> [SchemaField<Row>] {
        fields.map { field in
            SchemaField(name: variant.map { "\($0).\(field.name)" } ?? field.name, role: field.role, shape: field.shape,
                        mergeName: field.mergeName, mergeKind: field.mergeKind, leafName: field.leafName, path: field.path,
                        variant: variant,
                        value: { row in
                            guard let value = extract(row) else { return nil }
                            var writer = CanonicalWriter()
                            field.writeRow(value, &writer)
                            return writer.bytes
                        },
                        leafValue: { row in
                            guard field.role == .hashed, let value = extract(row) else { return nil }
                            var writer = CanonicalWriter()
                            field.writeLeaf(value, &writer)
                            return writer.bytes
                        },
                        replacing: { row, item throws(SyncKernelError) in
                            guard var value = extract(row) else { return nil }
                            try field.read(item, &value)
                            return embed(value)
                        },
                        perturb: { row in extract(row).map { embed(field.perturb($0)) } },
                        merging: { local, incoming in
                            guard let merge = field.merge, let mine = extract(local), let theirs = extract(incoming) else { return nil }
                            var joined = mine
                            merge(mine, theirs, &joined)
                            return embed(joined)
                        },
                        disagrees: { local, incoming in
                            guard let disagrees = field.disagrees, let mine = extract(local), let theirs = extract(incoming) else { return false }
                            return disagrees(mine, theirs)
                        },
                        blank: embed(blank))
        }
    }
}
