import SyncKernel
import XCTest

/// The spec's whole-bucket answers, by-key answers, and the trie comparison the sketch exchange
/// falls back to.
final class RangeCompareTests: XCTestCase {
    private typealias Row = RecordNamespace.Row

    private func stores(rows: Int) throws -> (TestWorld, KernelStore, KernelStore) {
        let world = try TestWorld()
        let requester = try world.store(device: 0)
        let responder = try world.store(device: 1)
        let shared = (0..<rows).map { Row(id: String(format: "row-%05d", $0), value: "v", updatedAt: 1) }
        try requester.write(RecordNamespace.self) { tx throws(SyncKernelError) in for row in shared { try tx.save(row) } }
        for response in try requester.respond(to: ReconcileRequest(namespace: RecordNamespace.name, buckets: [])) {
            try responder.apply(response)
        }
        XCTAssertEqual(requester.stateDigest(), responder.stateDigest(), "both hold the rows one device wrote")
        return (world, requester, responder)
    }

    /// Runs the trie comparison from `a`'s root split until no frame is left; returns the frames.
    private func compare(_ a: KernelStore, _ b: KernelStore) throws -> Int {
        var pump = ExchangePump(a: a, b: b)
        try pump.run(.rangeCompare(try a.rangeCompare(RecordNamespace.name, nodes: PrefixNode.root.children)))
        return pump.kinds.count
    }

    /// A comparison of twice as many depth-5 nodes as a receiver answers in one frame, and tens
    /// of thousands of empty listings (what the answer to a difference spread over every bucket
    /// holds), comes in parts that each decode, name at most `maxCompareNodes` nodes and are
    /// answered, and that hold exactly its nodes and listings in order.
    func testALargeNextComparisonComesInPartsEachOfWhichDecodes() throws {
        var nodes: [RangeCompare.NodeFingerprint] = []
        for index in 0..<(2 * KernelStore.maxCompareNodes) {
            let nibbles = (0..<5).map { UInt8(index >> (4 * (4 - $0)) & 15) }
            let node = try XCTUnwrap(PrefixNode(nibbles: nibbles))
            nodes.append(RangeCompare.NodeFingerprint(node: node, fingerprint: RangeFingerprint(count: Int64(index % 40 + 17), sum: UInt128(index))))
        }
        let listings = (0..<60_000).map { index in
            RangeListing(range: PrefixNode(nibbles: (0..<6).map { UInt8(index * 7 >> (4 * (5 - $0)) & 15) })?.range ?? KeyRange(lo: [], hi: nil),
                         leaves: [])
        }
        let whole = RangeCompare(namespace: RecordNamespace.name, nodes: nodes, listings: listings)
        func frame(_ compare: RangeCompare) -> [UInt8] {
            SyncFrame(account: [UInt8](repeating: 1, count: 32), schema: SchemaFingerprint(value: 1), body: .rangeCompare(compare)).encoded()
        }
        let world = try TestWorld()
        let store = try world.store(device: 0)
        XCTAssertThrowsError(try store.answer(whole), "the limit is real: a receiver answers at most maxCompareNodes nodes a frame") {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .malformedFrame)
        }
        let parts = whole.split()
        XCTAssertGreaterThan(parts.count, 2)
        var decodedNodes: [RangeCompare.NodeFingerprint] = []
        var decodedListings: [RangeListing] = []
        for part in parts {
            XCTAssertLessThanOrEqual(part.nodes.count, KernelStore.maxCompareNodes)
            let encoded = frame(part)
            XCTAssertLessThanOrEqual(encoded.count, SyncFrame.maxFrameBytes)
            guard case .rangeCompare(let decoded) = try SyncFrame(decoding: encoded).body else { return XCTFail("a comparison") }
            XCTAssertNoThrow(try store.answer(decoded))
            decodedNodes += decoded.nodes
            decodedListings += decoded.listings
        }
        XCTAssertEqual(decodedNodes, nodes)
        XCTAssertEqual(decodedListings, listings)
        XCTAssertEqual(RangeCompare(namespace: RecordNamespace.name, nodes: Array(nodes.prefix(3))).split().count, 1)
    }

    func testTheSpecAnswerShipsTheWholeMismatchingBucket() throws {
        let (world, requester, responder) = try stores(rows: 3_000)
        try responder.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "row-00100", value: "changed", updatedAt: 2))
        }
        let responses = try responder.respond(to: requester.reconcileRequest(for: RecordNamespace.name))
        XCTAssertEqual(responses.flatMap(\.rows).count, 12, "a bucket of ceil(3000 / 256) rows")
        for response in responses { try requester.apply(response) }
        XCTAssertEqual(requester.stateDigest(), responder.stateDigest())
        _ = world
    }

    func testAByKeyRequestForADeletedRowReturnsItsTombstone() throws {
        let (world, _, responder) = try stores(rows: 20)
        try responder.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: Array("row-00003".utf8)) }
        let responses = try responder.respond(to: ReconcileRequest(
            namespace: RecordNamespace.name, buckets: [], keys: [Array("row-00003".utf8), Array("absent".utf8)]))
        XCTAssertEqual(responses.flatMap(\.rows), [])
        XCTAssertEqual(responses.flatMap(\.tombstones).map(\.key), [Array("row-00003".utf8)])
        XCTAssertEqual(try responder.respond(toKeys: [Array("absent".utf8)], namespace: RecordNamespace.name), [])
        _ = world
    }

    func testTheTrieComparisonConvergesEditsInsertsAndDeletesBothWays() throws {
        let (world, a, b) = try stores(rows: 2_000)
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "row-00100", value: "edited on a", updatedAt: 2))
            try tx.save(Row(id: "only-a", value: "new", updatedAt: 2))
            try tx.delete(key: Array("row-00200".utf8))
        }
        try b.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "row-01500", value: "edited on b", updatedAt: 2))
            try tx.save(Row(id: "only-b", value: "new", updatedAt: 2))
        }
        XCTAssertGreaterThan(try compare(a, b), 2)
        XCTAssertEqual(a.stateDigest(), b.stateDigest())
        XCTAssertNil(try b.row(RecordNamespace.self, key: Array("row-00200".utf8)), "the delete travelled")
        XCTAssertEqual(try b.row(RecordNamespace.self, key: Array("row-00100".utf8))?.value, "edited on a")
        XCTAssertEqual(try a.row(RecordNamespace.self, key: Array("row-01500".utf8))?.value, "edited on b")
        _ = world
    }

    func testAnEqualNodeAnswersNothing() throws {
        let (world, a, b) = try stores(rows: 100)
        let (responses, next) = try b.answer(try a.rangeCompare(RecordNamespace.name, nodes: [.root]))
        XCTAssertEqual(responses, [])
        XCTAssertEqual(next, [])
        _ = world
    }

    func testRejectAComparisonNamingTooManyNodes() throws {
        let (world, a, _) = try stores(rows: 1)
        let node = RangeCompare.NodeFingerprint(node: .root, fingerprint: .empty)
        let compare = RangeCompare(namespace: RecordNamespace.name, nodes: Array(repeating: node, count: KernelStore.maxCompareNodes + 1))
        XCTAssertThrowsError(try a.answer(compare)) { XCTAssertEqual(($0 as? SyncKernelError)?.code, .malformedFrame) }
        _ = world
    }

    func testListingsNodesAndKeysRoundTripAndBadOnesAreRejected() throws {
        let account = [UInt8](repeating: 1, count: 32)
        let schema = SchemaFingerprint(value: 9)
        let leaves = [Leaf(key: [1], hash: [UInt8](repeating: 1, count: 32)), Leaf(key: [2], hash: [UInt8](repeating: 2, count: 32))]
        let node = try XCTUnwrap(PrefixNode(nibbles: [0, 1]))
        let frames = [
            SyncFrame(account: account, schema: schema, body: .reconcileRequest(ReconcileRequest(namespace: "records", buckets: [], keys: [[1], [2]]))),
            SyncFrame(account: account, schema: schema, body: .rangeCompare(RangeCompare(
                namespace: "records", nodes: [RangeCompare.NodeFingerprint(node: node, fingerprint: RangeFingerprint(count: 3, sum: 99))],
                listings: [RangeListing(range: KeyRange(lo: [1], hi: [3]), leaves: leaves)]))),
            SyncFrame(account: account, schema: schema, body: .reconcileResponse(ReconcileResponse(
                namespace: "records", rows: [], tombstones: [], want: [[1], [2]]))),
        ]
        for frame in frames { XCTAssertEqual(try SyncFrame(decoding: frame.encoded()), frame) }
        let unordered = SyncFrame(account: account, schema: schema, body: .rangeCompare(RangeCompare(
            namespace: "records", nodes: [], listings: [RangeListing(range: .all, leaves: leaves.reversed())])))
        XCTAssertThrowsError(try SyncFrame(decoding: unordered.encoded())) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .malformedFrame)
        }
        let outside = SyncFrame(account: account, schema: schema, body: .rangeCompare(RangeCompare(
            namespace: "records", nodes: [], listings: [RangeListing(range: KeyRange(lo: [2], hi: nil), leaves: leaves)])))
        XCTAssertThrowsError(try SyncFrame(decoding: outside.encoded()))
        XCTAssertNil(PrefixNode(nibbles: [16]), "a nibble is at most 15")
        XCTAssertNil(PrefixNode(nibbles: [UInt8](repeating: 1, count: PrefixNode.maxDepth + 1)))
    }
}
