/// The devices a `reconcile_resp` names, listed once so its version vectors can name them by
/// position: a 32-byte device key becomes a one-byte index.
///
/// Invariants: `devices` is sorted and holds no repeat, so a table and every vector written
/// against it are canonical; a vector is written as a flat array `[index, count, index, count,
/// ...]` with strictly increasing indices and positive counts, and read back only against the
/// same table (an index past the end, a repeat, a zero or an odd length is `malformedFrame`, a
/// count above `VersionVector.maxCounter` is `counterOutOfRange`).
/// Used only in frames to a peer that announced `SyncFrame.sketchCapability`, and only when it
/// makes the frame smaller; the spec's frames keep the spec's vectors (maps keyed by device key).
/// In a shipped row's vectors the index one past the table stands for the row's own creation
/// dimension (`ShippedRow.creation`), which the receiver derives from the row, so a row created
/// with its current content costs no table entry; anywhere else that index is refused. A shipped
/// version's writer (`ShippedRow.writer`) is written by its position too.
package struct DeviceTable: Sendable, Hashable {
    /// The most devices one table may list.
    package static let maxDevices = 4096

    /// The devices, sorted.
    package let devices: [DeviceID]
    private let positions: [DeviceID: Int]

    /// The table of every device the vectors of `response` name.
    package init(covering response: ReconcileResponse) {
        var seen: Set<DeviceID> = []
        func visit(_ vector: VersionVector?, own: DeviceID? = nil) {
            seen.formUnion((vector?.counters.keys).map { $0.filter { $0 != own } } ?? [])
        }
        func visit(_ row: ShippedRow) {
            visit(row.vector, own: row.creation)
            visit(row.contentVector, own: row.creation)
            if let writer = row.writer { seen.insert(writer) }
            row.siblings.forEach(visit)
        }
        response.rows.forEach(visit)
        response.tombstones.forEach { visit($0.vector) }
        self.init(sorted: seen.sorted())
    }

    /// A table over `devices`, which the caller guarantees sorted with no repeat (a `Set`'s
    /// sorted members, or a decoded table whose order was checked), so the positions never see a
    /// key twice.
    private init(sorted devices: [DeviceID]) {
        self.devices = devices
        var positions = [DeviceID: Int](minimumCapacity: devices.count)
        for (index, device) in devices.enumerated() { positions[device] = index }
        self.positions = positions
    }

    /// This table when writing `response` against it is smaller than writing device keys in
    /// every vector (an entry by key costs about 33 bytes more than one by position, a table
    /// entry about 34), else nil.
    package func ifSmaller(for response: ReconcileResponse) -> DeviceTable? {
        func entries(_ row: ShippedRow) -> Int {
            (row.vector?.counters.count ?? 0) + (row.contentVector?.counters.count ?? 0) + (row.writer == nil ? 0 : 1)
                + row.siblings.reduce(0) { $0 + entries($1) }
        }
        let total = response.rows.reduce(0) { $0 + entries($1) } + response.tombstones.reduce(0) { $0 + $1.vector.counters.count }
        return total * 33 > devices.count * 34 + 2 ? self : nil
    }

    /// Reads a table at `cursor`, charging `budget` for what it keeps; 32-byte keys,
    /// sorted, no repeat, at most `maxDevices`.
    package init(reading cursor: inout CBORCursor, budget: inout DecodeBudget) throws(SyncKernelError) {
        let count = try cursor.readArrayHeader()
        guard count <= DeviceTable.maxDevices else { throw SyncKernelError(.malformedFrame, "too many devices") }
        try budget.chargeArray(of: DeviceID.self, count: count)
        try budget.chargeDictionary(of: DeviceID.self, Int.self, count: count)
        var devices: [DeviceID] = []
        devices.reserveCapacity(count)
        for _ in 0..<count {
            let device = try DeviceID(publicKey: try cursor.readBytes(budget: &budget))
            guard devices.last.map({ $0 < device }) ?? true else {
                throw SyncKernelError(.malformedFrame, "a device table out of order")
            }
            devices.append(device)
        }
        self.init(sorted: devices)
    }

    /// Writes the table.
    package func encode(into writer: inout CanonicalWriter) {
        writer.writeArray(devices) { $0.write(bytes: $1.publicKey) }
    }

    /// Writes `vector` by position; `own` (a shipped row's creation dimension) by the index one
    /// past the table.
    package func encode(_ vector: VersionVector, own: DeviceID? = nil, into writer: inout CanonicalWriter) {
        let entries = vector.counters.compactMap { device, count in
            device == own ? (devices.count, count) : positions[device].map { ($0, count) }
        }.sorted { $0.0 < $1.0 }
        writer.writeArrayHeader(count: 2 * entries.count)
        for (index, count) in entries {
            writer.write(UInt64(index))
            writer.write(count)
        }
    }

    /// Writes `device` (a shipped version's writer) by its position in the table; the table
    /// covers every writer of the response it was made for.
    package func encode(writer device: DeviceID, into writer: inout CanonicalWriter) {
        writer.write(UInt64(positions[device] ?? devices.count))
    }

    /// Reads a writer written by position against this table at `cursor`; an index outside the
    /// table is `malformedFrame`.
    package func readWriter(_ cursor: inout CBORCursor) throws(SyncKernelError) -> DeviceID {
        let index = try cursor.readUInt()
        guard index < UInt64(devices.count) else { throw SyncKernelError(.malformedFrame, "a writer out of the device table") }
        return devices[Int(index)]
    }

    /// Reads a vector written by position against this table at `cursor`, charging `budget`
    /// for what it keeps; with `allowsOwn` (a shipped row's vectors) the index one past
    /// the table reads as `DeviceID.ownCreation`. A count above `VersionVector.maxCounter` is
    /// refused with `counterOutOfRange`.
    package func readVector(_ cursor: inout CBORCursor, allowsOwn: Bool = false,
                            budget: inout DecodeBudget) throws(SyncKernelError) -> VersionVector {
        let items = try cursor.readArrayHeader()
        guard items % 2 == 0 else { throw SyncKernelError(.malformedFrame, "a vector needs index and count pairs") }
        try budget.chargeDictionary(of: DeviceID.self, UInt64.self, count: items / 2)
        var counters = [DeviceID: UInt64](minimumCapacity: items / 2)
        var previous: UInt64?
        for _ in 0..<items / 2 {
            let index = try cursor.readUInt()
            let count = try cursor.readUInt()
            let limit = UInt64(devices.count) + (allowsOwn ? 1 : 0)
            guard index < limit, previous.map({ $0 < index }) ?? true, count > 0 else {
                throw SyncKernelError(.malformedFrame, "a vector entry out of the table, out of order or zero")
            }
            guard count <= VersionVector.maxCounter else {
                throw SyncKernelError(.counterOutOfRange, "a version-vector counter above VersionVector.maxCounter")
            }
            previous = index
            counters[index == UInt64(devices.count) ? DeviceID.ownCreation : devices[Int(index)]] = count
        }
        return VersionVector(positive: counters)
    }
}
