/// The kernel's namespace-agnostic view of one registered `SyncNamespace`, over row bytes.
///
/// Invariant: every operation is the namespace's own declaration applied to decoded rows; the
/// driver adds no policy of its own, so the kernel can treat all namespaces alike.
struct NamespaceDriver: Sendable {
    let name: String
    let leafSchemaVersion: Int
    let granularity: ReconcileGranularity
    let ruleName: String
    let isCausal: Bool
    let excludedFields: [ExcludedField]
    /// Decodes row bytes and returns (key, canonical bytes, leaf, leaf encoding, change stamp).
    let inspect: @Sendable ([UInt8]) throws(SyncKernelError) -> InspectedRow
    /// Non-causal merge: the bytes to store, or nil to keep the local row.
    let mergeUntracked: @Sendable (_ local: InspectedRow?, _ incoming: InspectedRow) throws(SyncKernelError) -> [UInt8]?
    /// Whether `incoming` wins a causal tie over `local`.
    let incomingWinsTie: @Sendable (_ incoming: InspectedRow, _ local: InspectedRow) throws(SyncKernelError) -> Bool
    /// The bytes to store when `incoming` wins over `local`.
    let adopt: @Sendable (_ incoming: InspectedRow, _ local: InspectedRow?) throws(SyncKernelError) -> [UInt8]

    init<N: SyncNamespace>(_ namespace: N.Type) {
        name = N.name
        leafSchemaVersion = N.leafSchemaVersion
        granularity = N.granularity
        ruleName = N.mergeRule.name
        excludedFields = N.excludedFields
        let stamp: (@Sendable (N.Row) -> Int64)?
        if case .tracked(let changeStamp) = N.causalMembership { stamp = changeStamp } else { stamp = nil }
        isCausal = stamp != nil
        let inspectRow: @Sendable ([UInt8]) throws(SyncKernelError) -> InspectedRow = { bytes throws(SyncKernelError) in
            let row = try N.decodeRow(bytes: bytes)
            return InspectedRow(row: row, namespace: N.self, stamp: stamp?(row))
        }
        inspect = inspectRow
        let rule = N.mergeRule
        mergeUntracked = { local, incoming throws(SyncKernelError) in
            let incomingRow = try incoming.typedRow(N.self)
            guard let local else { return N.rowEncoding(of: N.adopt(incomingRow, over: nil)) }
            let localRow = try local.typedRow(N.self)
            switch rule {
            case .causal, .insertIfAbsent:
                return nil
            case .monotone(let join), .fold(let join):
                let joined = N.rowEncoding(of: join(localRow, incomingRow))
                return joined == local.bytes ? nil : joined
            case .singleWriterLWW(let writerStamp):
                let (mine, theirs) = (writerStamp(localRow), writerStamp(incomingRow))
                let incomingWins = theirs > mine || (theirs == mine && N.incomingWinsTie(incomingRow, over: localRow))
                return incomingWins ? N.rowEncoding(of: N.adopt(incomingRow, over: localRow)) : nil
            }
        }
        incomingWinsTie = { incoming, local throws(SyncKernelError) in
            N.incomingWinsTie(try incoming.typedRow(N.self), over: try local.typedRow(N.self))
        }
        adopt = { incoming, local throws(SyncKernelError) in
            N.rowEncoding(of: N.adopt(try incoming.typedRow(N.self), over: try local?.typedRow(N.self)))
        }
    }
}
