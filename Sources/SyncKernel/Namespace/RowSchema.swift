/// A namespace's one declaration of its row: the key, the fields in order, and the leaf layout.
///
/// From it the kernel derives the row encoding (a positional array of every field, in order),
/// the leaf encoding (the hashed fields), the decoder, the exclusion list, the default `adopt`,
/// the `.join` merge and the schema fingerprint. Rows are decoded into a copy of `blank`, so
/// every stored property of the row type must be declared; `NamespaceSet` refuses a schema that
/// leaves one out, names a property that does not exist, or declares one twice.
///
/// Invariants: the encodings depend on the row and the declaration only; decoding accepts exactly
/// the encodings of valid rows (`validate` runs after every decode) and throws a typed error on
/// anything else.
public struct RowSchema<Row: Sendable>: Sendable {
    /// How the leaf lays out the hashed fields.
    public let layout: LeafLayout
    /// How the key is derived, for the fingerprint.
    package let keyDescription: String
    /// The key of a row.
    package let key: @Sendable (Row) -> [UInt8]
    /// The key field's key path, when the key is a field.
    package let keyPath: (any AnyKeyPath & Sendable)?
    /// Every declared field (variant fields prefixed with the variant's name).
    package let fields: [SchemaField<Row>]
    /// Declaration mistakes; `NamespaceSet` refuses a schema with any.
    package let problems: [String]
    /// Writes the row encoding.
    package let writeRowBody: @Sendable (Row, inout CanonicalWriter) -> Void
    /// Writes the `.sequence` leaf items.
    package let writeLeafBody: @Sendable (Row, inout CanonicalWriter) -> Void
    /// Reads a row encoding, then validates it.
    package let decodeBody: @Sendable (CBORValue) throws(SyncKernelError) -> Row
    /// The default `adopt`: per-device and local-identifier fields kept from the local row.
    package let adoptDefault: @Sendable (_ incoming: Row, _ local: Row?) -> Row
    /// The local row with every field merge applied.
    package let joinFields: @Sendable (_ local: Row, _ incoming: Row) -> Row
    /// The canonical description of the row format (what `encodeRow` writes), for migrations.
    package let rowFormat: [UInt8]
    /// Throws exactly when `decodeRow` would refuse the row's encoding (a field value its codec
    /// cannot read back, or `validate` refusing it), without encoding or decoding; nil when only
    /// a round trip can tell: a custom codec, a derived leaf item, a variant row, or a row whose
    /// decoded tree the declaration does not bound within `checkedTreeBound` (an array field:
    /// the reader's container, depth and memory limits then depend on the value).
    package let checkRow: (@Sendable (Row) throws(SyncKernelError) -> Void)?

    /// The largest decoded tree `checkRow` vouches for: at most 4,096 CBOR items nested at most 16
    /// deep. `CBORLimits.frame` allows depth 24, and 4,096 items keep the tree's own structure
    /// (a few dozen bytes an item) far inside `DecodeBudget.slack`, while byte and text strings
    /// are charged at about their length, within the budget's 4 bytes per input byte; so the
    /// reader never refuses such a row for its limits (a row's encoding is at most
    /// `InspectedRow.maxRowBytes`, checked apart).
    package static var checkedTreeBound: (items: Int, depth: Int) { (4_096, 16) }

    /// A struct row keyed by a byte-string field.
    public init(blank: Row, key: KeyPath<Row, [UInt8]> & Sendable, layout: LeafLayout = .sequence,
                validate: (@Sendable (Row) throws(SyncKernelError) -> Void)? = nil, _ fields: [Field<Row>]) {
        self.init(blank: blank, keyDescription: "bytes", keyPath: key, key: { $0[keyPath: key] }, layout: layout,
                  validate: validate, fields: fields)
    }

    /// A struct row keyed by a text field (the key is its UTF-8 bytes).
    public init(blank: Row, key: KeyPath<Row, String> & Sendable, layout: LeafLayout = .sequence,
                validate: (@Sendable (Row) throws(SyncKernelError) -> Void)? = nil, _ fields: [Field<Row>]) {
        self.init(blank: blank, keyDescription: "text", keyPath: key, key: { Array($0[keyPath: key].utf8) }, layout: layout,
                  validate: validate, fields: fields)
    }

    /// A struct row whose key is derived from its content (a content address, say); `name`
    /// identifies the derivation in the fingerprint.
    public init(blank: Row, derivedKey name: String, _ key: @escaping @Sendable (Row) -> [UInt8], layout: LeafLayout = .sequence,
                validate: (@Sendable (Row) throws(SyncKernelError) -> Void)? = nil, _ fields: [Field<Row>]) {
        self.init(blank: blank, keyDescription: "derived:\(name)", keyPath: nil, key: key, layout: layout,
                  validate: validate, fields: fields)
    }

    private init(blank: Row, keyDescription: String, keyPath: (any AnyKeyPath & Sendable)?, key: @escaping @Sendable (Row) -> [UInt8],
                 layout: LeafLayout, validate: (@Sendable (Row) throws(SyncKernelError) -> Void)?, fields: [Field<Row>]) {
        let list = FieldList(blank: blank, fields: fields)
        let count = fields.count
        self.layout = layout
        self.keyDescription = keyDescription
        self.key = key
        self.keyPath = keyPath
        self.fields = list.schemaFields(variant: nil, extract: { $0 }, embed: { $0 })
        problems = DeclarationAudit.problems(blank: blank, fields: fields, what: "row \(Row.self)")
        writeRowBody = { row, writer in
            writer.writeArrayHeader(count: count)
            list.writeRow(row, into: &writer)
        }
        writeLeafBody = { row, writer in list.writeLeaf(row, into: &writer) }
        decodeBody = { value throws(SyncKernelError) in
            let items = try value.array()
            guard items.count == count else { throw SyncKernelError(.malformedFrame, "a row of \(Row.self) has \(count) fields") }
            let row = try list.read(items[...])
            try validate?(row)
            return row
        }
        adoptDefault = { incoming, local in list.adopt(incoming, over: local) }
        joinFields = { local, incoming in list.join(local, incoming) }
        var format = CanonicalWriter()
        CodecShape.record(fields.map(\.shape)).encode(into: &format)
        rowFormat = format.bytes
        let tree = CodecShape.record(fields.map(\.shape)).boundedTree
        let bounded = tree.map { $0.items <= RowSchema.checkedTreeBound.items && $0.depth <= RowSchema.checkedTreeBound.depth } ?? false
        if bounded, let checkFields = Field.check(of: fields) {
            checkRow = { row throws(SyncKernelError) in
                try checkFields(row)
                try validate?(row)
            }
        } else {
            checkRow = nil
        }
    }

    /// A row that is an enum: each case a `RowVariant` with its own tag and fields; `key` derives
    /// the key from any case and `name` identifies that derivation in the fingerprint.
    public static func variants(derivedKey name: String, _ key: @escaping @Sendable (Row) -> [UInt8],
                                layout: LeafLayout = .sequence,
                                validate: (@Sendable (Row) throws(SyncKernelError) -> Void)? = nil,
                                _ variants: [RowVariant<Row>]) -> RowSchema {
        RowSchema(variants: variants, keyDescription: "derived:\(name)", key: key, layout: layout, validate: validate)
    }

    private init(variants: [RowVariant<Row>], keyDescription: String, key: @escaping @Sendable (Row) -> [UInt8],
                 layout: LeafLayout, validate: (@Sendable (Row) throws(SyncKernelError) -> Void)?) {
        self.layout = layout
        self.keyDescription = keyDescription
        self.key = key
        keyPath = nil
        fields = variants.flatMap(\.fields)
        var problems = variants.flatMap(\.problems)
        var tags: Set<UInt64> = []
        for variant in variants where !tags.insert(variant.tag).inserted {
            problems.append("variant \(variant.name): tag \(variant.tag) is used twice")
        }
        self.problems = problems
        writeRowBody = { row, writer in
            guard let variant = variants.first(where: { $0.matches(row) }) else {
                writer.writeArrayHeader(count: 0)
                return
            }
            writer.writeArrayHeader(count: 1 + variant.fieldCount)
            writer.write(variant.tag)
            variant.writeRow(row, &writer)
        }
        writeLeafBody = { row, writer in
            guard let variant = variants.first(where: { $0.matches(row) }) else { return }
            writer.write(variant.tag)
            variant.writeLeaf(row, &writer)
        }
        decodeBody = { value throws(SyncKernelError) in
            let items = try value.array()
            guard let tag = try items.first?.uint(), let variant = variants.first(where: { $0.tag == tag }) else {
                throw SyncKernelError(.malformedFrame, "a row of \(Row.self) has an unknown variant tag")
            }
            guard items.count == 1 + variant.fieldCount else {
                throw SyncKernelError(.malformedFrame, "variant \(variant.name) has \(variant.fieldCount) fields")
            }
            let row = try variant.read(items.dropFirst())
            try validate?(row)
            return row
        }
        adoptDefault = { incoming, local in
            variants.first(where: { $0.matches(incoming) })?.adopt(incoming, local) ?? incoming
        }
        joinFields = { local, incoming in
            variants.first(where: { $0.matches(local) })?.join(local, incoming) ?? local
        }
        checkRow = nil
        var format = CanonicalWriter()
        format.writeArray(variants) { writer, variant in
            writer.writeArrayHeader(count: 2)
            writer.write(variant.tag)
            CodecShape.record(variant.shapes).encode(into: &writer)
        }
        rowFormat = format.bytes
    }

    /// The key of `row`.
    public func key(of row: Row) -> [UInt8] { key(row) }

    /// The row encoding: every declared field, in order.
    public func encodeRow(_ row: Row) -> [UInt8] {
        var writer = CanonicalWriter(reservingCapacity: 256)
        writeRowBody(row, &writer)
        return writer.bytes
    }

    /// The leaf encoding: the hashed fields in a `.sequence`, or the row encoding for `.wholeRow`.
    public func encodeLeaf(_ row: Row) -> [UInt8] {
        switch layout {
        case .wholeRow:
            return encodeRow(row)
        case .sequence:
            var writer = CanonicalWriter(reservingCapacity: 256)
            writeLeafBody(row, &writer)
            return writer.bytes
        }
    }

    /// Reads a row written by `encodeRow`; throws a typed error on anything else.
    public func decodeRow(_ value: CBORValue) throws(SyncKernelError) -> Row {
        try decodeBody(value)
    }

    /// The 16-hex-digit id of the row format, as `rowFormatChanged` errors name it.
    public var rowFormatID: String {
        Hex.encode(SHA256.hash(domain: Array("synckernel.rowformat".utf8), rowFormat).prefix(8))
    }
}
