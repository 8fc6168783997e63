/// One row shipped in a `reconcile_resp`: its canonical row encoding and, for causal namespaces, its vector.
package struct ShippedRow: Sendable, Hashable {
    /// The row encoding, exactly as the sender's namespace declaration wrote it.
    package let row: [UInt8]
    /// The row's version vector (nil for untracked namespaces, or from a peer that sent none).
    package let vector: VersionVector?
    /// The vector of the write the content came from, when it differs from `vector`.
    package let contentVector: VersionVector?
    /// Concurrent versions of the same key that lost the tie-break, each with its own vector
    /// (`contentVector` unused); kept so that no concurrent write is lost to a tie.
    package let siblings: [ShippedRow]
    /// The creation dimension of this row's own content (`DeviceID.creation` of its key and
    /// leaf), when the sender knows it: a vector entry under it is written as a one-byte
    /// reference (`DeviceTable`), since the receiver can derive it from the row. Not compared.
    package let creation: DeviceID?
    /// The device that wrote this version (the row, or the sibling), when the sender knows it:
    /// bookkeeping for the conflict API (`ConflictVersion.writer`), shipped as `w` (a device key,
    /// or its position in the frame's `DeviceTable`); a build that does not know it ignores it,
    /// and no merge decision reads it.
    package let writer: DeviceID?
    /// Set on a row decoded from a push's delta form (`DeltaVector`): `vector` then holds only
    /// the entries the pusher's write changed, and this the check of every other entry, which the
    /// merge resolves against this store's own version of the key before the row counts as
    /// merged. Nil for a row shipped whole.
    package let base: [UInt8]?

    /// Creates a shipped row.
    package init(row: [UInt8], vector: VersionVector?, contentVector: VersionVector? = nil, siblings: [ShippedRow] = [],
                 creation: DeviceID? = nil, writer: DeviceID? = nil, base: [UInt8]? = nil) {
        self.row = row
        self.vector = vector
        self.base = base
        self.contentVector = contentVector
        self.siblings = siblings
        self.creation = creation
        self.writer = writer
    }

    package static func == (lhs: ShippedRow, rhs: ShippedRow) -> Bool {
        lhs.row == rhs.row && lhs.vector == rhs.vector && lhs.contentVector == rhs.contentVector && lhs.siblings == rhs.siblings
            && lhs.writer == rhs.writer && lhs.base == rhs.base
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(row)
        hasher.combine(vector)
        hasher.combine(contentVector)
        hasher.combine(siblings)
        hasher.combine(writer)
        hasher.combine(base)
    }
}

extension ShippedRow {
    /// An estimate of the row's encoded size on the wire, for splitting responses: the row bytes
    /// plus a bound on each vector's, the writer's and each sibling's.
    package var encodedSize: Int {
        row.count + 64 * ((vector?.counters.count ?? 0) + (contentVector?.counters.count ?? 0) + 1) + (writer == nil ? 0 : 40)
            + siblings.reduce(0) { $0 + $1.encodedSize }
    }
}

extension ShippedRow {
    /// Whether the row's vector, content vector or a sibling's names `DeviceID.unresolvedEpoch`.
    package var namesUnresolvedEpoch: Bool {
        vector.map { $0[.unresolvedEpoch] > 0 } == true || contentVector.map { $0[.unresolvedEpoch] > 0 } == true
            || siblings.contains { $0.namesUnresolvedEpoch }
    }

    /// Throws `counterOutOfRange` when the row's vector, its content vector or a sibling's vector
    /// holds a counter above `VersionVector.maxCounter`.
    package func checkCounters() throws(SyncKernelError) {
        try vector?.checkBounds("a shipped row's vector")
        try contentVector?.checkBounds("a shipped row's content vector")
        for sibling in siblings { try sibling.vector?.checkBounds("a shipped sibling version") }
    }

    /// What decoding this row from a frame keeps beyond `DecodeBudget.bytesPerInputByte` per wire
    /// byte, at most (its vectors counted in the compact form, the fewest wire bytes per entry),
    /// for `ReconcileResponse.split`; negative for rows whose bytes outweigh their bookkeeping.
    package var decodeExcess: Int {
        let perByte = DecodeBudget.bytesPerInputByte
        var excess = MemoryLayout<ShippedRow>.stride + DecodeBudget.arrayBytes(stride: 1, count: row.count) - perByte * (row.count + 3)
        for vector in [vector, contentVector].compactMap({ $0 }) { excess += ShippedRow.decodeExcess(of: vector) }
        if !siblings.isEmpty {
            excess += DecodeBudget.arrayBytes(stride: MemoryLayout<ShippedRow>.stride, count: siblings.count) - perByte * 3
            excess += siblings.reduce(0) { $0 + $1.decodeExcess }
        }
        return excess
    }

    /// What decoding `vector` keeps beyond `DecodeBudget.bytesPerInputByte` per wire byte, at
    /// most: its dictionary against its key and compact form (two bytes an entry at least).
    package static func decodeExcess(of vector: VersionVector) -> Int {
        let entries = vector.counters.count
        return DecodeBudget.dictionaryBytes(keyStride: MemoryLayout<DeviceID>.stride, valueStride: MemoryLayout<UInt64>.stride, count: entries)
            - DecodeBudget.bytesPerInputByte * (3 + 2 * entries)
    }
}
