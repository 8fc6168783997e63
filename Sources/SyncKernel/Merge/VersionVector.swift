/// Per-device edit counters: who has changed a row, and how many times, as far as this copy knows.
///
/// Invariants: a missing device counts as zero and zero counters are never stored; only the
/// owning device bumps its own dimension (`DeviceClock` enforces that); `merged(with:)` is the
/// elementwise maximum, so it is commutative, associative and idempotent. No wall clock is read.
/// No operation on a vector traps: merging and relating only compare counters, a bump refuses
/// (`counterOutOfRange`) to advance a counter past `maxCounter`, and a vector read from a peer
/// with a counter above `maxCounter` is refused.
public struct VersionVector: Sendable, Hashable {
    /// The largest counter a vector may hold: 2^63 - 1 (`Int64.max`).
    ///
    /// Invariant: a bump refuses to go past it, so a counter this build makes is at most
    /// `maxCounter` and `counter + 1` never overflows a `UInt64` (it is at most 2^63); a counter
    /// above it from a peer is refused on receipt (`counterOutOfRange`), so a hostile peer can
    /// never hand this device a counter it cannot bump without trapping. Every counter also fits
    /// a signed 64-bit integer (SQLite's and most hosts'). No honest history comes near it: a
    /// device bumping one row a billion times a second would need 292 years.
    public static let maxCounter = UInt64(Int64.max)

    /// The counters, by device.
    public private(set) var counters: [DeviceID: UInt64]

    /// The empty vector, dominated by every non-empty one.
    public init() {
        counters = [:]
    }

    /// A vector with the given counters (zero entries are dropped).
    public init(_ counters: [DeviceID: UInt64]) {
        self.counters = counters.filter { $0.value > 0 }
    }

    /// The counter of `device` (zero when absent).
    public subscript(device: DeviceID) -> UInt64 {
        counters[device] ?? 0
    }

    /// Whether no device has counted anything.
    public var isEmpty: Bool { counters.isEmpty }

    /// Adds one to `device`'s counter. Call only with the local device's own id.
    ///
    /// Throws `counterOutOfRange`, leaving the vector as it was, when the counter is already at
    /// or above `maxCounter` (a store written by an older build that accepted such a counter):
    /// the write that needs the bump fails instead of the process.
    package mutating func bump(_ device: DeviceID) throws(SyncKernelError) {
        let current = self[device]
        guard current < VersionVector.maxCounter else {
            throw SyncKernelError(.counterOutOfRange, "a version-vector counter at its bound cannot be bumped")
        }
        // Cannot overflow: current < maxCounter < UInt64.max.
        counters[device] = current + 1
    }

    /// Whether every counter is at most `maxCounter`.
    package var isWithinBounds: Bool {
        counters.values.allSatisfy { $0 <= VersionVector.maxCounter }
    }

    /// Throws `counterOutOfRange` naming `what` (a fixed description such as "a tombstone") when
    /// a counter is above `maxCounter`.
    package func checkBounds(_ what: String) throws(SyncKernelError) {
        guard isWithinBounds else {
            throw SyncKernelError(.counterOutOfRange, "\(what): a version-vector counter above VersionVector.maxCounter")
        }
    }

    /// This vector with `device`'s counter moved to `replacement` (merged with any it has).
    package func replacing(_ device: DeviceID, with replacement: DeviceID) -> VersionVector {
        guard let count = counters[device] else { return self }
        var moved = counters
        moved[device] = nil
        moved[replacement] = max(moved[replacement] ?? 0, count)
        return VersionVector(moved)
    }

    /// The elementwise maximum of both vectors.
    public func merged(with other: VersionVector) -> VersionVector {
        var result = counters
        for (device, count) in other.counters where count > result[device] ?? 0 {
            result[device] = count
        }
        return VersionVector(result)
    }

    /// How this vector relates causally to `other`.
    public func relation(to other: VersionVector) -> CausalRelation {
        var selfGreater = false
        var otherGreater = false
        for device in Set(counters.keys).union(other.counters.keys) {
            let mine = self[device]
            let theirs = other[device]
            if mine > theirs { selfGreater = true }
            if theirs > mine { otherGreater = true }
        }
        switch (selfGreater, otherGreater) {
        case (true, false): return .dominates
        case (false, true): return .dominated
        case (false, false): return .equal
        case (true, true): return .concurrent
        }
    }
}

extension VersionVector {
    /// Writes the vector as a CBOR map from device key bytes to counts, in key order.
    public func encode(into writer: inout CanonicalWriter) {
        writer.writeMap { map in
            for (device, count) in counters {
                map.entry(bytesKey: device.publicKey) { $0.write(count) }
            }
        }
    }

    /// Reads a vector written by `encode(into:)` (from a peer): zero counters are refused as
    /// non-canonical, counters above `maxCounter` with `counterOutOfRange`.
    public init(decoding value: CBORValue) throws(SyncKernelError) {
        try self.init(decoding: value, bound: VersionVector.maxCounter)
    }

    private init(decoding value: CBORValue, bound: UInt64) throws(SyncKernelError) {
        var counters: [DeviceID: UInt64] = [:]
        for entry in try value.mapEntries() {
            let device = try DeviceID(publicKey: try entry.key.bytes())
            let count = try entry.value.uint()
            guard count > 0 else { throw SyncKernelError(.nonCanonicalEncoding, "zero counter in a version vector") }
            guard count <= bound else {
                throw SyncKernelError(.counterOutOfRange, "a version-vector counter above VersionVector.maxCounter")
            }
            counters[device] = count
        }
        self.counters = counters
    }

    /// Reads a vector written by `encode(into:)` at `cursor`, charging `budget` for what it
    /// keeps; refuses what `init(decoding:)` refuses, in the same order. `bound` is the largest
    /// counter accepted: `maxCounter` for a peer's vector, `.max` for one this store wrote itself
    /// (an older build's counter above the bound still reads; only its bump fails).
    package init(reading cursor: inout CBORCursor, budget: inout DecodeBudget,
                 bound: UInt64 = VersionVector.maxCounter) throws(SyncKernelError) {
        let count = try cursor.readMapHeader()
        try budget.chargeDictionary(of: DeviceID.self, UInt64.self, count: count)
        var counters = [DeviceID: UInt64](minimumCapacity: count)
        for _ in 0..<count {
            let device = try DeviceID(publicKey: try cursor.readBytes(budget: &budget))
            let value = try cursor.readUInt()
            guard value > 0 else { throw SyncKernelError(.nonCanonicalEncoding, "zero counter in a version vector") }
            guard value <= bound else {
                throw SyncKernelError(.counterOutOfRange, "a version-vector counter above VersionVector.maxCounter")
            }
            counters[device] = value
        }
        self.counters = counters
    }

    /// A vector of counters already known to be positive (a decoder checked each).
    package init(positive counters: [DeviceID: UInt64]) {
        self.counters = counters
    }

    /// The canonical encoding as bytes.
    public func encoded() -> [UInt8] {
        var writer = CanonicalWriter()
        encode(into: &writer)
        return writer.bytes
    }
}
