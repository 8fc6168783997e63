import CSQLite
import Foundation
import SyncKernel
import SyncKernelSimulator
import XCTest

/// A false peel (a mixture of items taken for one, about once in 65,536 purity tests with 16
/// check bits) can hand the answer path a garbage key that neither side holds. Whether it comes
/// as a wanted key, an offered one, or out of a crafted sketch that decodes to it, it writes no
/// row, no delete version and no bookkeeping on either side: every table of both SQLite files
/// reads the same before and after, and so do the digests and change counters.
final class FalsePeelTests: XCTestCase {
    private typealias Row = RecordNamespace.Row
    private let namespace = RecordNamespace.name

    /// Garbage keys: one shaped like the namespace's keys, one of raw bytes with a zero byte, one
    /// of the longest length a sketch carries.
    private let garbage: [[UInt8]] = [Array("row-99999".utf8), [0xff, 0x00, 0x13, 0x80],
                                      [UInt8](repeating: 0xa5, count: SketchItem.maxKeyBytes)]

    /// Two stores holding the same 40 rows, one with a delete version of another key, both
    /// written by device 0 and copied to device 1 through the spec's whole-namespace answer.
    private func pair(_ world: TestWorld) throws -> (KernelStore, KernelStore, String, String) {
        let (pathA, pathB) = (world.path(), world.path())
        let a = try world.store(device: 0, path: pathA)
        let b = try world.store(device: 1, path: pathB)
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<40 { try tx.save(Row(id: String(format: "row-%05d", index), value: "v", updatedAt: 1)) }
        }
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: Array("row-00003".utf8)) }
        for response in try a.respond(to: ReconcileRequest(namespace: namespace, buckets: [])) { try b.apply(response) }
        XCTAssertEqual(a.stateDigest(), b.stateDigest())
        XCTAssertEqual(try b.tombstones(namespace: namespace).count, 1, "the delete version travelled")
        return (a, b, pathA, pathB)
    }

    /// Everything both stores hold: every table's rows (hex, sorted), the digest and counters.
    private func snapshot(_ store: KernelStore, at path: String) throws -> [String] {
        try Self.tableDump(at: path) + ["digest \(store.stateDigest())", "counters \(store.changeCounters())"]
    }

    func testAGarbageKeyWantedAndOfferedWritesNothingOnEitherSide() throws {
        let world = try TestWorld()
        let (a, b, pathA, pathB) = try pair(world)
        let before = (try snapshot(a, at: pathA), try snapshot(b, at: pathB))
        let responses = try b.responses(namespace, wanted: garbage, offered: garbage)
        XCTAssertEqual(responses.count, 1, "the wanted keys travel")
        XCTAssertEqual(responses.first?.rows, [], "no row of a key b does not hold")
        XCTAssertEqual(responses.first?.tombstones, [], "no delete version of a key b never deleted")
        let wanted = (responses.first?.want ?? []) + (responses.first?.wantPrefixes ?? [])
        XCTAssertEqual(wanted.count, garbage.count, "each garbage key wanted, whole or by a prefix")
        for key in wanted { XCTAssertTrue(garbage.contains { $0.starts(with: key) }, "only garbage keys are wanted") }
        var shipBack: [[UInt8]] = []
        for response in responses {
            let outcome = try a.apply(response)
            XCTAssertEqual(outcome.rowsApplied + outcome.tombstonesApplied, 0)
            XCTAssertFalse(outcome.digestChanged)
            shipBack += outcome.keysToShipBack
        }
        XCTAssertTrue(Set(shipBack).isSubset(of: Set(garbage)), "a merely asks back what was wanted, and no prefix starts a key of a's")
        XCTAssertEqual(try a.respond(toKeys: shipBack, namespace: namespace, isFinal: true), [],
                       "a holds none of them either, so nothing goes back")
        XCTAssertEqual(try snapshot(a, at: pathA), before.0, "a is unchanged")
        XCTAssertEqual(try snapshot(b, at: pathB), before.1, "b is unchanged")
        for key in garbage {
            XCTAssertNil(try a.version(namespace: namespace, key: key))
            XCTAssertNil(try b.version(namespace: namespace, key: key))
        }
    }

    /// A sketch crafted to decode to a garbage item on either side (added to the sender's
    /// symbols: b wants it; removed: b offers it) runs the whole exchange and changes nothing.
    func testASketchThatDecodesToAGarbageItemRunsTheExchangeAndChangesNothing() throws {
        let world = try TestWorld()
        let (a, b, pathA, pathB) = try pair(world)
        let before = (try snapshot(a, at: pathA), try snapshot(b, at: pathB))
        var random = SeededGenerator(seed: 0xfa15e)
        for key in garbage {
            for direction: Int64 in [1, -1] {
                guard case .sketch(let honest) = try a.sketchStart(for: namespace, expectedItems: 2) else {
                    return XCTFail("a difference of 2 starts with a sketch")
                }
                let item = SketchItem(key: key, itemHash: random.bytes(32))
                var symbols = honest.symbols
                for index in RatelessSketch.indices(of: item, below: symbols.count) { symbols[index].apply(item, direction: direction) }
                let crafted = SketchRequest(namespace: namespace, root: honest.root, symbols: symbols)
                guard case .differs(let wanted, let offered) = try b.decide(crafted) else {
                    return XCTFail("the crafted sketch decodes to its garbage item")
                }
                XCTAssertEqual(wanted, direction == 1 ? [key] : [])
                XCTAssertEqual(offered, direction == 1 ? [] : [key])
                var pump = ExchangePump(a: a, b: b)
                try pump.run(.sketch(crafted))
                XCTAssertEqual(try snapshot(a, at: pathA), before.0, "a is unchanged (direction \(direction))")
                XCTAssertEqual(try snapshot(b, at: pathB), before.1, "b is unchanged (direction \(direction))")
            }
        }
    }

    /// A garbage key beside a real difference: the real rows move, the garbage key is nowhere.
    func testAGarbageKeyBesideARealDifferenceLeavesOnlyTheRealChange() throws {
        let world = try TestWorld()
        let (a, b, _, _) = try pair(world)
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(Row(id: "fresh", value: "a", updatedAt: 2)) }
        guard case .sketch(let honest) = try a.sketchStart(for: namespace, expectedItems: 3) else {
            return XCTFail("a difference of 3 starts with a sketch")
        }
        var random = SeededGenerator(seed: 0xfa15f)
        let item = SketchItem(key: garbage[0], itemHash: random.bytes(32))
        var symbols = honest.symbols
        for index in RatelessSketch.indices(of: item, below: symbols.count) { symbols[index].apply(item, direction: 1) }
        var pump = ExchangePump(a: a, b: b)
        try pump.run(.sketch(SketchRequest(namespace: namespace, root: honest.root, symbols: symbols)))
        XCTAssertEqual(a.stateDigest(), b.stateDigest())
        XCTAssertEqual(try b.row(RecordNamespace.self, key: Array("fresh".utf8))?.value, "a")
        XCTAssertNil(try a.version(namespace: namespace, key: garbage[0]))
        XCTAssertNil(try b.version(namespace: namespace, key: garbage[0]))
        XCTAssertEqual(try a.tombstones(namespace: namespace), try b.tombstones(namespace: namespace))
        XCTAssertEqual(try b.tombstones(namespace: namespace).count, 1)
    }

    /// Every row of every table of the SQLite file at `path`, each as its columns in hex, tables
    /// in name order and rows sorted, read through a connection of its own.
    static func tableDump(at path: String) throws -> [String] {
        var handle: OpaquePointer?
        guard sqlite3_open(path, &handle) == SQLITE_OK else { throw SyncKernelError(.storeClosed, "cannot open \(path)") }
        defer { sqlite3_close(handle) }
        func rows(_ sql: String) throws -> [[String]] {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
                throw SyncKernelError(.storeClosed, "cannot prepare \(sql)")
            }
            defer { sqlite3_finalize(statement) }
            var result: [[String]] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                result.append((0..<sqlite3_column_count(statement)).map { column in
                    let count = Int(sqlite3_column_bytes(statement, column))
                    guard let bytes = sqlite3_column_blob(statement, column) else { return "null" }
                    return Hex.encode(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
                })
            }
            return result
        }
        var dump: [String] = []
        for table in try rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap(\.first) {
            guard let name = Hex.decode(table).map({ String(decoding: $0, as: UTF8.self) }) else { continue }
            dump += try rows("SELECT * FROM \"\(name)\"").map { "\(name): " + $0.joined(separator: " ") }.sorted()
        }
        return dump
    }
}
