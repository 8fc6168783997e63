import SyncKernel
import XCTest

final class RangeListingTests: XCTestCase {
    private typealias Row = RecordNamespace.Row

    private func stores(rows: Int, policy: ResponsePolicy) throws -> (TestWorld, KernelStore, KernelStore) {
        let world = try TestWorld()
        let requester = try KernelStore(path: world.path(), namespaces: NamespaceSet([RecordNamespace.self]), responsePolicy: policy)
        try requester.configureDevice(TestWorld.device(0))
        let responder = try KernelStore(path: world.path(), namespaces: NamespaceSet([RecordNamespace.self]), responsePolicy: policy)
        try responder.configureDevice(TestWorld.device(1))
        let shared = (0..<rows).map { Row(id: String(format: "row-%05d", $0), value: "v", updatedAt: 1) }
        for store in [requester, responder] {
            try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in for row in shared { try tx.save(row) } }
        }
        return (world, requester, responder)
    }

    func testLargeMismatchingRangesAreListedAndOnlyDifferingRowsAreFetched() throws {
        let (world, requester, responder) = try stores(rows: 3_000, policy: .standard)
        try responder.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "row-00100", value: "changed", updatedAt: 2))
            try tx.save(Row(id: "row-01000x", value: "new", updatedAt: 2))
        }
        let response = try XCTUnwrap(try responder.respond(to: requester.reconcileRequest(for: RecordNamespace.name)))
        XCTAssertEqual(response.rows, [], "large ranges are listed, not shipped")
        XCTAssertEqual(response.listings.count, 2)
        XCTAssertEqual(response.listings.map(\.leaves.count), [12, 13], "groups of ceil(3000 / 256) = 12")
        let wanted = try requester.wantedKeys(response.listings, namespace: RecordNamespace.name)
        XCTAssertEqual(wanted, [Array("row-00100".utf8), Array("row-01000x".utf8)])
        let followUp = try XCTUnwrap(try responder.respond(to: ReconcileRequest(namespace: RecordNamespace.name, buckets: [], keys: wanted)))
        XCTAssertEqual(followUp.rows.count, 2)
        try requester.apply(followUp)
        XCTAssertEqual(requester.stateDigest(), responder.stateDigest())
        _ = world
    }

    func testShipRowsPolicyShipsTheWholeBucketAsTheSpecDoes() throws {
        let (world, requester, responder) = try stores(rows: 3_000, policy: .shipRows)
        try responder.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "row-00100", value: "changed", updatedAt: 2))
        }
        let response = try XCTUnwrap(try responder.respond(to: requester.reconcileRequest(for: RecordNamespace.name)))
        XCTAssertEqual(response.listings, [])
        XCTAssertEqual(response.rows.count, 12)
        _ = world
    }

    func testAByKeyRequestForADeletedRowReturnsItsTombstone() throws {
        let (world, _, responder) = try stores(rows: 20, policy: .standard)
        try responder.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: Array("row-00003".utf8)) }
        let response = try XCTUnwrap(try responder.respond(to: ReconcileRequest(
            namespace: RecordNamespace.name, buckets: [], keys: [Array("row-00003".utf8), Array("absent".utf8)])))
        XCTAssertEqual(response.rows, [])
        XCTAssertEqual(response.tombstones.map(\.key), [Array("row-00003".utf8)])
        XCTAssertNil(try responder.respond(to: ReconcileRequest(namespace: RecordNamespace.name, buckets: [],
                                                                keys: [Array("absent".utf8)])))
        _ = world
    }

    func testListingsAndKeysRoundTripAndBadListingsAreRejected() throws {
        let account = [UInt8](repeating: 1, count: 32)
        let schema = SchemaFingerprint(value: 9)
        let leaves = [Leaf(key: [1], hash: [UInt8](repeating: 1, count: 32)), Leaf(key: [2], hash: [UInt8](repeating: 2, count: 32))]
        let frames = [
            SyncFrame(account: account, schema: schema, body: .reconcileRequest(ReconcileRequest(namespace: "records", buckets: [], keys: [[1], [2]]))),
            SyncFrame(account: account, schema: schema, body: .reconcileResponse(ReconcileResponse(
                namespace: "records", rows: [], tombstones: [], listings: [RangeListing(range: KeyRange(lo: [1], hi: [3]), leaves: leaves)]))),
        ]
        for frame in frames { XCTAssertEqual(try SyncFrame(decoding: frame.encoded()), frame) }
        let unordered = SyncFrame(account: account, schema: schema, body: .reconcileResponse(ReconcileResponse(
            namespace: "records", rows: [], tombstones: [], listings: [RangeListing(range: .all, leaves: leaves.reversed())])))
        XCTAssertThrowsError(try SyncFrame(decoding: unordered.encoded())) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .malformedFrame)
        }
        let outside = SyncFrame(account: account, schema: schema, body: .reconcileResponse(ReconcileResponse(
            namespace: "records", rows: [], tombstones: [], listings: [RangeListing(range: KeyRange(lo: [2], hi: nil), leaves: leaves)])))
        XCTAssertThrowsError(try SyncFrame(decoding: outside.encoded()))
    }
}
