/// What the kernel reads off a namespace's declaration: the description the schema fingerprint
/// commits to, and the mistakes `NamespaceSet` refuses.
///
/// Invariant: `describe` covers everything the declaration says that changes a leaf, a row
/// format or a merge (layout, key, rule and the field its stamp reads, every field's role,
/// category, shape, merge and leaf contribution, in order, the granularity and `schemaVersion`);
/// it leaves out field names, since renaming a property changes no byte anyone hashes or ships.
enum NamespaceDeclaration {
    static func describe<N: SyncNamespace>(_ namespace: N.Type) -> [UInt8] {
        let schema = N.schema
        var writer = CanonicalWriter()
        writer.writeArrayHeader(count: 8)
        writer.write(N.name)
        writer.write(N.schemaVersion)
        writer.write(N.granularity.rawValue)
        writer.write(schema.layout.rawValue)
        writer.writeArrayHeader(count: 2)
        writer.write(schema.keyDescription)
        writer.write(Int64(fieldIndex(schema, schema.keyPath) ?? -1))
        writer.writeArrayHeader(count: 3)
        writer.write(N.mergeRule.name)
        switch N.mergeRule.kind {
        case .causal(_, let path, _), .singleWriterLWW(_, let path, _):
            writer.write(fieldIndex(schema, path).map { "field \($0)" } ?? "computed")
            writer.write(false)
        case .join(let normalize):
            writer.writeNull()
            writer.write(normalize != nil)
        case .insertIfAbsent:
            writer.writeNull()
            writer.write(false)
        }
        writer.write(bytes: schema.rowFormat)
        writer.writeArray(schema.fields) { writer, field in field.describe(into: &writer) }
        return writer.bytes
    }

    static func problems<N: SyncNamespace>(_ namespace: N.Type) -> [String] {
        let schema = N.schema
        var problems = schema.problems
        for field in schema.fields where field.role == .member {
            problems.append("field \(field.name) is a .member outside a group or record")
        }
        if let keyPath = schema.keyPath {
            if let index = fieldIndex(schema, keyPath) {
                if schema.fields[index].role != .hashed { problems.append("the key field \(schema.fields[index].name) must be hashed") }
            } else {
                problems.append("the key is not a declared field")
            }
        }
        if schema.layout == .wholeRow, let excluded = schema.fields.first(where: { $0.exclusion != nil }) {
            problems.append("field \(excluded.name) is excluded, but a .wholeRow leaf hashes every field; use .sequence")
        }
        let keyIndex = fieldIndex(schema, schema.keyPath)
        switch N.mergeRule.kind {
        case .join:
            for (index, field) in schema.fields.enumerated() where field.role == .hashed && field.mergeName == nil && index != keyIndex {
                problems.append("hashed field \(field.name) has no merge, and .join() converges only what its fields merge")
            }
        case .causal, .insertIfAbsent, .singleWriterLWW:
            for field in schema.fields where field.mergeName != nil {
                problems.append("field \(field.name) declares a merge, but .\(N.mergeRule.name) merges whole rows and would ignore it")
            }
        }
        return problems.map { "\(N.name): \($0)" }
    }

    private static func fieldIndex<Row>(_ schema: RowSchema<Row>, _ path: (any AnyKeyPath & Sendable)?) -> Int? {
        guard let path else { return nil }
        return schema.fields.firstIndex { $0.path.map { $0 == path } ?? false }
    }
}
