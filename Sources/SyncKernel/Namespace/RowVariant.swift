/// One case of a row that is an enum: a tag and the fields of the case's payload.
///
/// A variant row is written as a positional array whose first item is the tag, followed by the
/// payload's fields; its `.sequence` leaf is the tag followed by the payload's hashed fields.
public struct RowVariant<Row: Sendable>: Sendable {
    let name: String
    let tag: UInt64
    let fieldCount: Int
    let fields: [SchemaField<Row>]
    let problems: [String]
    let shapes: [CodecShape]
    let matches: @Sendable (Row) -> Bool
    let writeRow: @Sendable (Row, inout CanonicalWriter) -> Void
    let writeLeaf: @Sendable (Row, inout CanonicalWriter) -> Void
    let read: @Sendable (ArraySlice<CBORValue>) throws(SyncKernelError) -> Row
    let adopt: @Sendable (_ incoming: Row, _ local: Row?) -> Row
    let join: @Sendable (_ local: Row, _ incoming: Row) -> Row

    /// The case `name` with tag `tag`: its payload's fields over `blank`, and how to reach the
    /// payload (`extract`, nil for rows of another case) and build the row (`embed`).
    public static func variant<Payload: Sendable>(_ name: String, tag: UInt64, blank: Payload,
                                                  embed: @escaping @Sendable (Payload) -> Row,
                                                  extract: @escaping @Sendable (Row) -> Payload?,
                                                  _ fields: [Field<Payload>]) -> RowVariant {
        let list = FieldList(blank: blank, fields: fields)
        return RowVariant(
            name: name, tag: tag, fieldCount: fields.count,
            fields: list.schemaFields(variant: name, extract: extract, embed: embed),
            problems: DeclarationAudit.problems(blank: blank, fields: fields, what: "variant \(name)"),
            shapes: fields.map(\.shape),
            matches: { extract($0) != nil },
            writeRow: { row, writer in if let payload = extract(row) { list.writeRow(payload, into: &writer) } },
            writeLeaf: { row, writer in if let payload = extract(row) { list.writeLeaf(payload, into: &writer) } },
            read: { items throws(SyncKernelError) in embed(try list.read(items)) },
            adopt: { incoming, local in
                guard let payload = extract(incoming) else { return incoming }
                return embed(list.adopt(payload, over: local.flatMap(extract)))
            },
            join: { local, incoming in
                guard let mine = extract(local), let theirs = extract(incoming) else { return local }
                return embed(list.join(mine, theirs))
            })
    }
}
