extension SyncNamespace {
    /// Range fingerprints by default.
    public static var granularity: ReconcileGranularity { .ranges }

    /// Version 1 by default.
    public static var schemaVersion: Int { 1 }

    /// No earlier row formats by default.
    public static var migrations: [RowMigration<Row>] { [] }

    /// Keeps this device's per-device and local-identifier fields by default.
    public static func adopt(_ incoming: Row, over local: Row?) -> Row {
        schema.adoptDefault(incoming, local)
    }

    /// The greater leaf encoding wins a tie by default.
    public static func incomingWinsTie(_ incoming: Row, over local: Row) -> Bool {
        leafEncoding(of: local).lexicographicallyPrecedes(leafEncoding(of: incoming))
    }

    /// No row is device-derived by default.
    public static func isDeviceDerived(_ row: Row) -> Bool { false }

    /// No operation is refused by default.
    public static func refusedOperations(in row: Row) -> Int { 0 }
}

extension SyncNamespace {
    /// The leaf domain separator, `synckernel.state.<name>`.
    public static var leafDomain: [UInt8] { Array("synckernel.state.\(name)".utf8) }

    /// The row's stable cross-device key.
    public static func key(of row: Row) -> [UInt8] { schema.key(of: row) }

    /// The canonical leaf encoding of `row` (the bytes that are hashed).
    public static func leafEncoding(of row: Row) -> [UInt8] { schema.encodeLeaf(row) }

    /// The leaf of `row`: its key and SHA-256 over the leaf domain and the leaf encoding.
    public static func leaf(of row: Row) -> Leaf {
        Leaf(key: key(of: row), hash: SHA256.hash(domain: leafDomain, leafEncoding(of: row)))
    }

    /// The row's wire and storage encoding.
    public static func rowEncoding(of row: Row) -> [UInt8] { schema.encodeRow(row) }

    /// Decodes a row from a decoded CBOR item; throws a typed error on anything but a valid row.
    public static func decodeRow(_ value: CBORValue) throws(SyncKernelError) -> Row { try schema.decodeRow(value) }

    /// Decodes a row from its stored or shipped bytes, under the frame limits; the tree it reads
    /// through keeps at most `DecodeBudget(inputBytes: bytes.count).limit` bytes, a larger one
    /// is refused with `limitExceeded` before it is built.
    public static func decodeRow(bytes: [UInt8]) throws(SyncKernelError) -> Row {
        try schema.decodeRow(CBORReader.decode(bytes))
    }

    /// Under `.join()`: the join of two copies of a row (every field's merge with excluded fields
    /// from `local`, over both copies normalised, then `normalize` again); nil under the other
    /// rules, which do not join rows. Normalising each copy first means a part `normalize` drops
    /// (an operation the rules refuse) never takes part in a field merge, so it can never displace
    /// a part that stays (a refused copy of an operation id winning the union over the kept copy).
    public static func joined(_ local: Row, _ incoming: Row) -> Row? {
        guard case .join(let normalize) = mergeRule.kind else { return nil }
        guard let normalize else { return schema.joinFields(local, incoming) }
        return normalize(schema.joinFields(normalize(local), normalize(incoming)))
    }

    /// Under `.join()`: the hashed fields whose merge calls the two rows' values a disagreement
    /// (two different held values of a fill-if-empty field), by name; empty under the other rules.
    public static func disagreeingFields(_ local: Row, _ incoming: Row) -> [String] {
        guard case .join = mergeRule.kind else { return [] }
        return schema.fields.filter { $0.disagrees(local, incoming) }.map(\.name)
    }

    /// The fields kept out of the leaf, each with its category and reason.
    public static var excludedFields: [ExcludedField] {
        schema.fields.compactMap { field in
            guard case .excluded(let category, let reason) = field.role else { return nil }
            return ExcludedField(field.name, category, reason: reason)
        }
    }
}
