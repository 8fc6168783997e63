/// The devices a `reconcile_resp` names, listed once so its version vectors can name them by
/// position: a 32-byte device key becomes a one-byte index.
///
/// Invariants: `devices` is sorted and holds no repeat, so a table and every vector written
/// against it are canonical; a vector is written as a flat array `[index, count, index, count,
/// ...]` with strictly increasing indices and positive counts, and read back only against the
/// same table (an index past the references, a repeat, a zero or an odd length is
/// `malformedFrame`, a count above `VersionVector.maxCounter` is `counterOutOfRange`).
/// Used only in frames to a peer that announced `SyncFrame.sketchCapability` (there every
/// response carries one, empty or not); the spec's frames keep the spec's vectors (maps keyed by
/// device key). Two indices past the table are references, not entries: `ownIndex` (one past)
/// stands, in a shipped row's vectors only, for the row's own creation dimension
/// (`ShippedRow.creation`), which the receiver derives from the row, so a row created with its
/// current content costs no table entry; `senderIndex` (two past) stands, anywhere a device is
/// written, for the frame's sender (`SyncFrame.sender`) when both ends know it: the writer of the
/// versions a device ships is nearly always itself. In a `push` only, a third index
/// (`receiverIndex`, three past) stands for the frame's receiver (`SyncFrame.receiver`): the
/// device a push goes to is named in the vectors of every row it edited that the receiver wrote
/// before, and between two devices that table is then empty. A reference the reader cannot
/// resolve (own outside a row's vectors, the sender or receiver when it does not know them) is
/// `malformedFrame`. In a push to a sibling that announced `SyncFrame.leanCapability`, a fourth
/// (`epochIndex`, four past) stands in vectors for the sender's current epoch dimension
/// (`SyncFrame.senderEpoch`), which the receiver learned from the sender's announcement
/// (`SyncFrame.epochAnnouncement`); a reader that holds none or more than one epoch of the
/// sender reads it as `DeviceID.unresolvedEpoch`, which the merge leaves unmerged, never as
/// another dimension. A push's delta row (`DeltaVector`) writes its vector as
/// `[check, index, count, ...]`: an odd length whose first item is the check's bytes.
/// A shipped version's writer (`ShippedRow.writer`) is written by its position too.
package struct DeviceTable: Sendable, Hashable {
    /// The most devices one table may list.
    package static let maxDevices = 4096

    /// The devices, sorted.
    package let devices: [DeviceID]
    /// The frame's sender, written and read as `senderIndex` when known.
    package let sender: DeviceID?
    /// The frame's receiver, written and read as `receiverIndex` when known (a push only).
    package let receiver: DeviceID?
    /// The sender's current epoch dimension, written and read as `epochIndex` (a push only):
    /// when writing, set only when the receiver knows it; when reading, nil reads the index as
    /// `DeviceID.unresolvedEpoch`.
    package let senderEpoch: DeviceID?
    /// Whether `epochIndex` may be read (a push): elsewhere the index is out of the table.
    private let readsEpoch: Bool
    private let positions: [DeviceID: Int]

    /// The index that stands for a shipped row's own creation dimension: one past the table.
    package var ownIndex: Int { devices.count }
    /// The index that stands for the frame's sender: two past the table.
    package var senderIndex: Int { devices.count + 1 }
    /// The index that stands for the frame's receiver (a push only): three past the table.
    package var receiverIndex: Int { devices.count + 2 }
    /// The index that stands for the sender's current epoch dimension (a push only): four past
    /// the table.
    package var epochIndex: Int { devices.count + 3 }

    /// The table of every device the vectors of `response` name, but `sender`, `receiver` and
    /// `senderEpoch` (nil: every device); with `delta` (the sender's write dimension in a push to
    /// a sibling that reads delta rows), a row `DeltaVector.applies` to names only that dimension
    /// and its writer.
    package init(covering response: ReconcileResponse, sender: DeviceID? = nil, receiver: DeviceID? = nil,
                 senderEpoch: DeviceID? = nil, delta: DeviceID? = nil) {
        var seen: Set<DeviceID> = []
        for row in response.rows {
            if let delta, DeltaVector.applies(to: row, dimension: delta, sender: sender, receiver: receiver) {
                seen.insert(delta)
                if let writer = row.writer { seen.insert(writer) }
            } else {
                seen.formUnion(DeviceTally.devices(of: row))
            }
        }
        for tombstone in response.tombstones { seen.formUnion(DeviceTally.devices(of: tombstone)) }
        for known in [sender, receiver, senderEpoch].compactMap({ $0 }) { seen.remove(known) }
        self.init(sorted: seen.sorted(), sender: sender, receiver: receiver == sender ? nil : receiver, senderEpoch: senderEpoch,
                  readsEpoch: senderEpoch != nil)
    }

    /// The table of no devices, what a `push` that leaves its table out is read against.
    package init(emptyWith sender: DeviceID?, receiver: DeviceID? = nil, senderEpoch: DeviceID? = nil, readsEpoch: Bool = false) {
        self.init(sorted: [], sender: sender, receiver: receiver == sender ? nil : receiver, senderEpoch: senderEpoch,
                  readsEpoch: readsEpoch)
    }

    /// A table over `devices`, which the caller guarantees sorted with no repeat (a `Set`'s
    /// sorted members, or a decoded table whose order was checked), so the positions never see a
    /// key twice.
    private init(sorted devices: [DeviceID], sender: DeviceID?, receiver: DeviceID? = nil, senderEpoch: DeviceID? = nil,
                 readsEpoch: Bool = false) {
        self.devices = devices
        self.sender = sender
        self.receiver = receiver
        self.senderEpoch = senderEpoch
        self.readsEpoch = readsEpoch
        var positions = [DeviceID: Int](minimumCapacity: devices.count)
        for (index, device) in devices.enumerated() { positions[device] = index }
        self.positions = positions
    }

    /// Reads a table at `cursor`, charging `budget` for what it keeps; 32-byte keys,
    /// sorted, no repeat, at most `maxDevices`. `sender` is the frame's sender when the reader
    /// knows it; a table may still list it (a writer that did not know its own device wrote it
    /// as any other), and a vector that then names it both ways is refused as a repeat; so for
    /// `receiver`, the frame's receiver when it is a push; with `readsEpoch` (a push), `epochIndex`
    /// reads as `senderEpoch`, or as `DeviceID.unresolvedEpoch` when that is nil.
    package init(reading cursor: inout CBORCursor, sender: DeviceID? = nil, receiver: DeviceID? = nil,
                 senderEpoch: DeviceID? = nil, readsEpoch: Bool = false, budget: inout DecodeBudget) throws(SyncKernelError) {
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
        self.init(sorted: devices, sender: sender, receiver: receiver == sender ? nil : receiver, senderEpoch: senderEpoch,
                  readsEpoch: readsEpoch)
    }

    /// Writes the table.
    package func encode(into writer: inout CanonicalWriter) {
        writer.writeArray(devices) { $0.write(bytes: $1.publicKey) }
    }

    /// The index `device` is written as: `own` (a shipped row's creation dimension) as
    /// `ownIndex`, the sender as `senderIndex`, the receiver as `receiverIndex`, any other by its
    /// position (nil when the table does not cover it, which `init(covering:sender:receiver:)`
    /// rules out for the response it was made for).
    private func index(of device: DeviceID, own: DeviceID?) -> Int? {
        if device == own { return ownIndex }
        if device == sender { return senderIndex }
        if device == receiver { return receiverIndex }
        if device == senderEpoch { return epochIndex }
        return positions[device]
    }

    /// Writes `vector` by position; `own` (a shipped row's creation dimension) as `ownIndex` and
    /// the sender as `senderIndex`; with `check`, as a delta row's vector (`DeltaVector`): the
    /// check's bytes first.
    package func encode(_ vector: VersionVector, own: DeviceID? = nil, check: [UInt8]? = nil, into writer: inout CanonicalWriter) {
        let entries = vector.counters.compactMap { device, count in
            index(of: device, own: own).map { ($0, count) }
        }.sorted { $0.0 < $1.0 }
        writer.writeArrayHeader(count: 2 * entries.count + (check == nil ? 0 : 1))
        if let check { writer.write(bytes: check) }
        for (index, count) in entries {
            writer.write(UInt64(index))
            writer.write(count)
        }
    }

    /// Writes `device` (a shipped version's writer) by its position in the table, or as
    /// `senderIndex` when it is the sender; the table covers every writer of the response it was
    /// made for.
    package func encode(writer device: DeviceID, into writer: inout CanonicalWriter) {
        writer.write(UInt64(index(of: device, own: nil) ?? ownIndex))
    }

    /// The device `index` names outside a row's own creation: a table entry, or the sender or
    /// receiver when this table knows them; nil for anything else.
    private func device(at index: UInt64) -> DeviceID? {
        if index < UInt64(devices.count) { return devices[Int(index)] }
        if index == UInt64(senderIndex) { return sender }
        if index == UInt64(receiverIndex) { return receiver }
        return nil
    }

    /// Reads a writer written by position against this table at `cursor`; an index that names
    /// no table entry and not the known sender is `malformedFrame`.
    package func readWriter(_ cursor: inout CBORCursor) throws(SyncKernelError) -> DeviceID {
        guard let device = device(at: try cursor.readUInt()) else {
            throw SyncKernelError(.malformedFrame, "a writer out of the device table")
        }
        return device
    }

    /// Reads a vector written by position against this table at `cursor`, charging `budget`
    /// for what it keeps; with `allowsOwn` (a shipped row's vectors) `ownIndex` reads as
    /// `DeviceID.ownCreation`, and `senderIndex` reads as the sender when this table knows it. A
    /// count above `VersionVector.maxCounter` is refused with `counterOutOfRange`.
    package func readVector(_ cursor: inout CBORCursor, allowsOwn: Bool = false,
                            budget: inout DecodeBudget) throws(SyncKernelError) -> VersionVector {
        let items = try cursor.readArrayHeader()
        guard items % 2 == 0 else { throw SyncKernelError(.malformedFrame, "a vector needs index and count pairs") }
        return try readEntries(&cursor, pairs: items / 2, allowsOwn: allowsOwn, budget: &budget)
    }

    /// Reads a push row's vector (`allowsDelta`: the row may be a delta row): the vector, and the
    /// check when it is a delta row's (`DeltaVector.checkBytes` bytes, then entries that never
    /// name the row's own creation). Elsewhere as `readVector`.
    package func readRowVector(_ cursor: inout CBORCursor, allowsDelta: Bool,
                               budget: inout DecodeBudget) throws(SyncKernelError) -> (vector: VersionVector, check: [UInt8]?) {
        let items = try cursor.readArrayHeader()
        guard items % 2 == 1, allowsDelta else {
            guard items % 2 == 0 else { throw SyncKernelError(.malformedFrame, "a vector needs index and count pairs") }
            return (try readEntries(&cursor, pairs: items / 2, allowsOwn: true, budget: &budget), nil)
        }
        let check = try cursor.readBytes(count: DeltaVector.checkBytes, budget: &budget)
        guard items > 1 else { throw SyncKernelError(.malformedFrame, "a delta row changes no entry") }
        return (try readEntries(&cursor, pairs: items / 2, allowsOwn: false, budget: &budget), check)
    }

    /// Reads `pairs` index and count pairs of a vector.
    private func readEntries(_ cursor: inout CBORCursor, pairs: Int, allowsOwn: Bool,
                             budget: inout DecodeBudget) throws(SyncKernelError) -> VersionVector {
        try budget.chargeDictionary(of: DeviceID.self, UInt64.self, count: pairs)
        var counters = [DeviceID: UInt64](minimumCapacity: pairs)
        var previous: UInt64?
        for _ in 0..<pairs {
            let index = try cursor.readUInt()
            let count = try cursor.readUInt()
            let device = allowsOwn && index == UInt64(ownIndex) ? DeviceID.ownCreation
                : readsEpoch && index == UInt64(epochIndex) ? senderEpoch ?? DeviceID.unresolvedEpoch : self.device(at: index)
            guard let device, previous.map({ $0 < index }) ?? true, count > 0, counters[device] == nil else {
                throw SyncKernelError(.malformedFrame, "a vector entry out of the table, out of order, zero or a repeat")
            }
            guard count <= VersionVector.maxCounter else {
                throw SyncKernelError(.counterOutOfRange, "a version-vector counter above VersionVector.maxCounter")
            }
            previous = index
            counters[device] = count
        }
        return VersionVector(positive: counters)
    }
}
