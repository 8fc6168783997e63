/// The devices the part of a `reconcile_resp` being assembled names, so the assembler cuts the
/// part before its `DeviceTable` outgrows what every receiver reads (`DeviceTable.maxDevices`).
///
/// Invariants: `devices(of:)` is exactly what `DeviceTable.init(covering:sender:)` lists for a row
/// or a delete version (a shipped row's own creation dimension excluded, since it costs no entry;
/// the sender included, so the tally never undercounts); a part to which `admits` answered true
/// for every item lists at most `DeviceTable.maxDevices` devices, so no frame a sender assembles
/// this way is refused by a receiver of the same build for its table.
package struct DeviceTally: Sendable {
    private var devices: Set<DeviceID> = []

    /// An empty tally.
    package init() {}

    /// Devices tallied.
    package var count: Int { devices.count }

    /// The devices `row`'s vectors, writer and siblings name, but its own creation dimension.
    package static func devices(of row: ShippedRow) -> Set<DeviceID> {
        var seen: Set<DeviceID> = []
        collect(row, into: &seen)
        return seen
    }

    /// The devices `tombstone`'s vector names.
    package static func devices(of tombstone: Tombstone) -> Set<DeviceID> {
        Set(tombstone.vector.counters.keys)
    }

    private static func collect(_ row: ShippedRow, into seen: inout Set<DeviceID>) {
        for vector in [row.vector, row.contentVector] {
            guard let vector else { continue }
            for device in vector.counters.keys where device != row.creation { seen.insert(device) }
        }
        if let writer = row.writer { seen.insert(writer) }
        for sibling in row.siblings { collect(sibling, into: &seen) }
    }

    /// Whether a part holding what was tallied and `more` still lists at most
    /// `DeviceTable.maxDevices` devices.
    package func admits(_ more: Set<DeviceID>) -> Bool {
        devices.count + more.lazy.filter { !devices.contains($0) }.count <= DeviceTable.maxDevices
    }

    /// Adds `more` to the tally.
    package mutating func add(_ more: Set<DeviceID>) {
        devices.formUnion(more)
    }
}
