import Foundation
import SyncKernel

/// negentropy's figure for the same key sets as a point of `synckernel bench-e2e`: the two
/// devices' notebook items just before the sync, written as files and reconciled by the
/// reference implementation (`bench/negentropy/driver.cpp`, built by `make negentropy-driver`),
/// plus the fetch of the differing rows it leaves to the application.
///
/// Invariants: an item is a 32-byte id, SHA-256 (domain `bench-e2e negentropy id`) of the row key
/// and its structure item (the leaf hash, or the conflict item), with timestamp 0 for every item
/// (so negentropy orders by id: the differences sit at random positions, as they do in the
/// sketch); device a is negentropy's initiator; the sets are exact: the preloaded items with each
/// key a device changed replaced by what the store holds for it after the sync (keys changed by
/// a on a's side, by b on b's side; the plan never lets both change one key); the driver must
/// report that the ids it learned are exactly the symmetric difference, else there is no figure.
struct NegentropyComparison {
    /// Bytes per fetched row beside its payload and key: a 32-byte id naming it (in the request,
    /// or beside a row pushed unasked) and 8 bytes of framing (the lengths of key and row).
    static let fetchOverheadPerRow = 40
    /// The key length of a notebook row.
    static let keyBytes = 16

    /// What the driver printed, and the fetch added.
    struct Figure {
        /// Bytes initiator to responder.
        let bytesAToB: Int
        /// Bytes responder to initiator.
        let bytesBToA: Int
        /// Round trips of the reconcile.
        let reconcileTrips: Int
        /// Ids the initiator lacks (to fetch).
        let need: Int
        /// Library CPU per side, milliseconds.
        let cpuMilliseconds: (a: Double, b: Double)
        /// Bytes of moving the D differing rows after: D x (row bytes + key + `fetchOverheadPerRow`).
        let fetchBytes: Int

        /// Everything on the wire: reconcile both ways and the fetch.
        var totalBytes: Int { bytesAToB + bytesBToA + fetchBytes }
        /// Round trips with the fetch: one more when the initiator must ask for rows (need > 0);
        /// rows it pushes ride one way after the last answer.
        var roundTrips: Int { reconcileTrips + (need > 0 ? 1 : 0) }
    }

    /// The driver's path.
    let driver: String

    /// Runs the driver on the sets of `plan` over `preloaded` (`after`: store a's items after the
    /// sync for the keys the plan changed, nil for none), writing the item files in `directory`.
    func figure(plan: E2EPlan, preloaded: [[UInt8]: [UInt8]], after: [[UInt8]: [UInt8]?], directory: String) throws -> Figure {
        let keysA = plan.keys(forA: true)
        let keysB = plan.keys(forA: false)
        let changedA = Set(keysA)
        let changedB = Set(keysB)
        var setA = Data()
        var setB = Data()
        setA.reserveCapacity(40 * (preloaded.count + keysA.count))
        setB.reserveCapacity(40 * (preloaded.count + keysB.count))
        for (key, item) in preloaded {
            if !changedA.contains(key) { append(key, item, to: &setA) }
            if !changedB.contains(key) { append(key, item, to: &setB) }
        }
        for key in keysA {
            if let item = after[key] ?? nil { append(key, item, to: &setA) }
        }
        for key in keysB {
            if let item = after[key] ?? nil { append(key, item, to: &setB) }
        }
        let pathA = directory + "/negentropy-a.items"
        let pathB = directory + "/negentropy-b.items"
        try setA.write(to: URL(fileURLWithPath: pathA))
        try setB.write(to: URL(fileURLWithPath: pathB))
        defer {
            try? FileManager.default.removeItem(atPath: pathA)
            try? FileManager.default.removeItem(atPath: pathB)
        }
        let object = try run([pathA, pathB])
        guard object["exact"] as? Bool == true, let bytesAToB = object["bytes_a_to_b"] as? Int,
              let bytesBToA = object["bytes_b_to_a"] as? Int, let trips = object["round_trips"] as? Int,
              let need = object["need"] as? Int, let cpuA = object["cpu_ms_a"] as? Double, let cpuB = object["cpu_ms_b"] as? Double
        else { throw E2EError("negentropy-driver printed no exact figure: \(object)") }
        return Figure(bytesAToB: bytesAToB, bytesBToA: bytesBToA, reconcileTrips: trips, need: need, cpuMilliseconds: (cpuA, cpuB),
                      fetchBytes: plan.differences * (plan.rowBytes + Self.keyBytes + Self.fetchOverheadPerRow))
    }

    /// Appends the 40-byte item of (`key`, `item`): timestamp 0, then the id.
    private func append(_ key: [UInt8], _ item: [UInt8], to data: inout Data) {
        data.append(contentsOf: [UInt8](repeating: 0, count: 8))
        data.append(contentsOf: SHA256.hash(domain: Array("bench-e2e negentropy id".utf8), key, item))
    }

    /// Runs the driver with `arguments` and parses its one JSON line.
    private func run(_ arguments: [String]) throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: driver)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw E2EError("negentropy-driver exited \(process.terminationStatus): \(String(decoding: data, as: UTF8.self))")
        }
        return object
    }
}
