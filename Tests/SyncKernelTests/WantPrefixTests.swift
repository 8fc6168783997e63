@testable import SyncKernel
import SyncKernelSimulator
import XCTest

/// Wanted keys by prefix (`ReconcileResponse.wantPrefixes`): the side that decoded a sketch asks
/// for the keys only its peer holds by the shortest prefix that tells each apart among the
/// peer's keys, and the peer ships exactly those rows; a key no prefix shortens stays whole, a
/// prefix that starts more than `maxPrefixMatches` keys ships nothing, and an empty prefix is
/// refused on the wire.
final class WantPrefixTests: XCTestCase {
    private typealias Row = RecordNamespace.Row
    private let namespace = RecordNamespace.name

    /// Twelve random lowercase letters: keys that share short prefixes only.
    private func randomID(_ generator: inout SeededGenerator) -> String {
        String((0..<12).map { _ in Character(UnicodeScalar(UInt8(97 + generator.next() % 26))) })
    }

    /// Two stores holding `shared` rows alike, then `onlyA` and `onlyB` rows each side alone.
    private func pair(shared: Int, onlyA: Int, onlyB: Int, seed: UInt64, world: TestWorld)
        throws -> (a: KernelStore, b: KernelStore, aOnly: [[UInt8]], bOnly: [[UInt8]]) {
        var generator = SeededGenerator(seed: seed)
        let a = try world.store(device: 0)
        let b = try world.store(device: 1)
        let ids = (0..<(shared + onlyA + onlyB)).map { _ in randomID(&generator) }
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for id in ids.prefix(shared) { try tx.save(Row(id: id, value: "v", updatedAt: 1)) }
        }
        for response in try a.respond(to: ReconcileRequest(namespace: namespace, buckets: [])) { try b.apply(response) }
        let aOnly = Array(ids[shared..<(shared + onlyA)])
        let bOnly = Array(ids[(shared + onlyA)...])
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for id in aOnly { try tx.save(Row(id: id, value: "a", updatedAt: 2)) }
        }
        try b.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for id in bOnly { try tx.save(Row(id: id, value: "b", updatedAt: 2)) }
        }
        return (a, b, aOnly.map { Array($0.utf8) }, bOnly.map { Array($0.utf8) })
    }

    /// B's answer to A's sketch names A's keys by prefixes shorter than the keys, each starting
    /// exactly one of A's keys, which resolve on A to exactly the keys only A holds; the exchange
    /// ends with both stores equal.
    func testWantedKeysTravelAsTheShortestPrefixThatTellsThemApartAndResolveToExactlyThem() throws {
        for seed: UInt64 in [1, 2, 3] {
            let world = try TestWorld()
            let (a, b, aOnly, bOnly) = try pair(shared: 300, onlyA: 6, onlyB: 4, seed: seed, world: world)
            guard case .sketch(let sketch) = try a.sketchStart(for: namespace, expectedItems: 40) else {
                return XCTFail("seed \(seed): a sketch")
            }
            guard case .responses(let responses) = try b.answer(sketch, mark: nil) else {
                return XCTFail("seed \(seed): 10 items decode from 84 symbols")
            }
            let prefixes = responses.flatMap(\.wantPrefixes)
            XCTAssertEqual(responses.flatMap(\.want), [], "seed \(seed): every wanted key shortened")
            XCTAssertEqual(prefixes.count, aOnly.count, "seed \(seed)")
            for prefix in prefixes {
                XCTAssertLessThan(prefix.count, 12, "seed \(seed): shorter than the key")
                XCTAssertEqual(aOnly.filter { $0.starts(with: prefix) }.count, 1, "seed \(seed): starts one key only A holds")
                XCTAssertEqual(try a.rows(RecordNamespace.self).filter { Array($0.id.utf8).starts(with: prefix) }.count, 1,
                               "seed \(seed): and no other key of A's")
            }
            XCTAssertEqual(try a.keys(wantedBy: prefixes, namespace: namespace), Set(aOnly), "seed \(seed)")
            XCTAssertEqual(responses.flatMap(\.rows).count, bOnly.count, "seed \(seed): B ships the rows only it holds")
            var pump = ExchangePump(a: a, b: b)
            try pump.run(.sketch(sketch))
            XCTAssertEqual(a.stateDigest(), b.stateDigest(), "seed \(seed)")
            XCTAssertEqual(try b.rows(RecordNamespace.self).count, 310, "seed \(seed)")
        }
    }

    /// A key that another of the peer's keys starts with cannot be told apart by a prefix: it is
    /// wanted whole, and the exchange still ends equal.
    func testAKeyThatAnotherKeyStartsWithIsWantedWhole() throws {
        let world = try TestWorld()
        let a = try world.store(device: 0)
        let b = try world.store(device: 1)
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for id in ["kettle", "kettledrum", "lamp"] { try tx.save(Row(id: id, value: "v", updatedAt: 1)) }
        }
        try b.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "kettledrum", value: "v", updatedAt: 1))
            try tx.save(Row(id: "lamp", value: "v", updatedAt: 1))
        }
        let prefixes = try b.wantPrefixes(namespace, keys: [Array("kettle".utf8)], peerHolds: [Array("kettle".utf8)], peerLacks: [])
        XCTAssertEqual(prefixes, [:], "\"kettle\" starts \"kettledrum\": no prefix of it names one key")
        let shortened = try b.wantPrefixes(namespace, keys: [Array("lamp".utf8)], peerHolds: [Array("lamp".utf8)], peerLacks: [])
        XCTAssertEqual(shortened, [Array("lamp".utf8): Array("l".utf8)])
        let lacking = try b.wantPrefixes(namespace, keys: [Array("kettle".utf8)], peerHolds: [Array("kettle".utf8)],
                                         peerLacks: [Array("kettledrum".utf8)])
        XCTAssertEqual(lacking, [Array("kettle".utf8): Array("k".utf8)], "a key the peer lacks is no neighbour")
        guard case .sketch(let sketch) = try a.sketchStart(for: namespace, expectedItems: 1) else { return XCTFail("a sketch") }
        var pump = ExchangePump(a: a, b: b)
        try pump.run(.sketch(sketch))
        XCTAssertEqual(a.stateDigest(), b.stateDigest())
    }

    /// A prefix ships the synced keys it starts when there are at most `maxPrefixMatches`, and
    /// nothing when there are more; an empty prefix ships nothing.
    func testAPrefixStartingMoreThanTheLimitShipsNothing() throws {
        let world = try TestWorld()
        let store = try world.store(device: 0)
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for id in ["aa1", "aa2", "ab1", "ab2", "ab3", "ab4", "ab5", "b"] { try tx.save(Row(id: id, value: "v", updatedAt: 1)) }
        }
        func keys(_ prefixes: [String]) throws -> Set<String> {
            Set(try store.keys(wantedBy: prefixes.map { Array($0.utf8) }, namespace: namespace).map { String(decoding: $0, as: UTF8.self) })
        }
        XCTAssertEqual(try keys(["aa"]), ["aa1", "aa2"])
        XCTAssertEqual(try keys(["ab"]), [], "five keys start ab, one more than the limit")
        XCTAssertEqual(try keys(["ab4", "b", "c"]), ["ab4", "b"])
        XCTAssertEqual(try keys([""]), [])
        XCTAssertEqual(KeyRange.prefixEnd([0x01, 0xff]), [0x02])
        XCTAssertNil(KeyRange.prefixEnd([0xff, 0xff]))
        XCTAssertNil(KeyRange.prefixEnd([]))
    }

    func testRejectAnEmptyWantedPrefixOnTheWire() throws {
        let response = ReconcileResponse(namespace: namespace, rows: [], tombstones: [], wantPrefixes: [[0x61], [0x62, 0x63]])
        for compact in [false, true] {
            let frame = SyncFrame(account: [UInt8](repeating: 1, count: 32), schema: SchemaFingerprint(value: 7),
                                  body: .reconcileResponse(response), compactVectors: compact, compactHeader: compact)
            XCTAssertEqual(try SyncFrame(decoding: frame.encoded()).body, .reconcileResponse(response), "compact \(compact)")
            let empty = SyncFrame(account: [UInt8](repeating: 1, count: 32), schema: SchemaFingerprint(value: 7),
                                  body: .reconcileResponse(ReconcileResponse(namespace: namespace, rows: [], tombstones: [],
                                                                             wantPrefixes: [[0x61], []])),
                                  compactVectors: compact, compactHeader: compact)
            XCTAssertThrowsError(try SyncFrame(decoding: empty.encoded())) { error in
                XCTAssertEqual((error as? SyncKernelError)?.code, .malformedFrame, "compact \(compact)")
            }
        }
    }
}
