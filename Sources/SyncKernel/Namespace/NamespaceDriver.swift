/// The kernel's namespace-agnostic view of one registered `SyncNamespace`, over row bytes.
///
/// Invariant: every operation is the namespace's own declaration applied to decoded rows; the
/// driver adds no policy of its own, so the kernel can treat all namespaces alike.
struct NamespaceDriver: Sendable {
    let name: String
    let granularity: ReconcileGranularity
    let ruleName: String
    let isCausal: Bool
    let excludedFields: [ExcludedField]
    /// The current row format id, recorded by the store beside the rows.
    let rowFormatID: String
    /// The declaration the schema fingerprint commits to.
    let declaration: [UInt8]
    /// Declaration mistakes; a namespace with any is refused.
    let problems: [String]
    /// Decodes row bytes and returns (key, canonical bytes, leaf, leaf encoding, change stamp).
    let inspect: @Sendable ([UInt8]) throws(SyncKernelError) -> InspectedRow
    /// Rewrites bytes stored in format `from` into the current format; nil when no migration reads it.
    let migrate: @Sendable (_ from: String, _ bytes: [UInt8]) throws(SyncKernelError) -> [UInt8]?
    /// Non-causal merge: the bytes to store, or nil to keep the local row.
    let mergeUntracked: @Sendable (_ local: InspectedRow?, _ incoming: InspectedRow) throws(SyncKernelError) -> [UInt8]?
    /// Whether `incoming` wins a causal tie over `local`.
    let incomingWinsTie: @Sendable (_ incoming: InspectedRow, _ local: InspectedRow) throws(SyncKernelError) -> Bool
    /// The bytes to store when `incoming` wins over `local`.
    let adopt: @Sendable (_ incoming: InspectedRow, _ local: InspectedRow?) throws(SyncKernelError) -> [UInt8]
    /// The fields whose held values disagree between `local` and `incoming` (under `.join()`).
    let disagreements: @Sendable (_ local: InspectedRow, _ incoming: InspectedRow) throws(SyncKernelError) -> [String]
    /// The operations a row holds that the namespace's rules refuse.
    let refusedOperations: @Sendable (_ row: InspectedRow) throws(SyncKernelError) -> Int

    init<N: SyncNamespace>(_ namespace: N.Type) {
        name = N.name
        granularity = N.granularity
        let rule = N.mergeRule
        ruleName = rule.name
        isCausal = rule.isCausal
        excludedFields = N.excludedFields
        rowFormatID = N.schema.rowFormatID
        declaration = NamespaceDeclaration.describe(N.self)
        problems = NamespaceDeclaration.problems(N.self)
        let stamp: (@Sendable (N.Row) -> Int64)?
        if case .causal(let changeStamp, _, _) = rule.kind { stamp = changeStamp } else { stamp = nil }
        inspect = { bytes throws(SyncKernelError) in
            guard bytes.count <= InspectedRow.maxRowBytes else {
                throw SyncKernelError(.limitExceeded, "\(N.name): a row encoding longer than \(InspectedRow.maxRowBytes) bytes")
            }
            let row = try N.decodeRow(bytes: bytes)
            guard N.key(of: row).count <= InspectedRow.maxKeyBytes else {
                throw SyncKernelError(.limitExceeded, "\(N.name): a row key longer than \(InspectedRow.maxKeyBytes) bytes")
            }
            return InspectedRow(row: row, namespace: N.self, stamp: stamp?(row))
        }
        let migrations = N.migrations
        migrate = { format, bytes throws(SyncKernelError) in
            guard let migration = migrations.first(where: { $0.fromFormat == format }) else { return nil }
            let row = try migration.decode(CBORReader.decode(bytes))
            return N.rowEncoding(of: row)
        }
        // The adopted row's bytes; an adopted row that re-encodes to the inspected incoming row's
        // own bytes is that row (the encoding is canonical), so its leaf is checked only when it
        // differs. Without an inspected row (a first copy the join normalized) the leaf of
        // `incoming` as given is the one adopt must keep.
        let adoptChecked: @Sendable (N.Row, N.Row?, InspectedRow?) throws(SyncKernelError) -> [UInt8] = {
            incoming, local, inspected throws(SyncKernelError) in
            let adopted = N.adopt(incoming, over: local)
            let bytes = N.rowEncoding(of: adopted)
            if let inspected, bytes == inspected.bytes { return bytes }
            guard N.leafEncoding(of: adopted) == (inspected?.leafEncoding ?? N.leafEncoding(of: incoming)) else {
                throw SyncKernelError(.invalidDeclaration, "\(N.name): adopt changed the leaf of the winning row")
            }
            return bytes
        }
        mergeUntracked = { local, incoming throws(SyncKernelError) in
            let incomingRow = try incoming.typedRow(N.self)
            guard let local else {
                // A first copy still passes the join's normalize (which drops what the rules refuse).
                guard case .join(let normalize?) = rule.kind else { return try adoptChecked(incomingRow, nil, incoming) }
                return try adoptChecked(normalize(incomingRow), nil, nil)
            }
            let localRow = try local.typedRow(N.self)
            switch rule.kind {
            case .causal, .insertIfAbsent:
                return nil
            case .join:
                let joined = N.rowEncoding(of: N.joined(localRow, incomingRow) ?? localRow)
                return joined == local.bytes ? nil : joined
            case .singleWriterLWW(let writerStamp, _, _):
                let (mine, theirs) = (writerStamp(localRow), writerStamp(incomingRow))
                let incomingWins = theirs != mine ? theirs > mine : try N.incomingWinsTie(incomingRow, over: localRow)
                return incomingWins ? try adoptChecked(incomingRow, localRow, incoming) : nil
            }
        }
        incomingWinsTie = { incoming, local throws(SyncKernelError) in
            try N.incomingWinsTie(try incoming.typedRow(N.self), over: try local.typedRow(N.self))
        }
        adopt = { incoming, local throws(SyncKernelError) in
            try adoptChecked(try incoming.typedRow(N.self), try local?.typedRow(N.self), incoming)
        }
        disagreements = { local, incoming throws(SyncKernelError) in
            N.disagreeingFields(try local.typedRow(N.self), try incoming.typedRow(N.self))
        }
        refusedOperations = { row throws(SyncKernelError) in N.refusedOperations(in: try row.typedRow(N.self)) }
    }
}
