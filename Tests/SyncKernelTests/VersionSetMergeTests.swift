import SyncKernel
import XCTest

/// The causal merge keeps every version no later write or delete replaced, so its result does
/// not depend on delivery order and a concurrent write is never lost to a tie.
final class VersionSetMergeTests: XCTestCase {
    private typealias Row = RecordNamespace.Row

    private func response(_ store: KernelStore) throws -> ReconcileResponse {
        let responses = try store.respond(to: ReconcileRequest(namespace: RecordNamespace.name, buckets: []))
        XCTAssertEqual(responses.count, 1)
        return try XCTUnwrap(responses.first)
    }

    private func save(_ value: String, at stamp: Int64, _ store: KernelStore) throws {
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(Row(id: "k", value: value, updatedAt: stamp)) }
    }

    private func value(_ store: KernelStore) throws -> String? {
        try store.row(RecordNamespace.self, key: Array("k".utf8))?.value
    }

    /// w1 → w2 (w2 descends from w1) and w3 concurrent with both, where the tie-break prefers
    /// w1 > w3 > w2: merging w1 with w3 first used to let stale w1 win, then beat its own successor.
    func testTheResultDoesNotDependOnDeliveryOrder() throws {
        let world = try TestWorld()
        let a = try world.store(device: 0)
        let b = try world.store(device: 1)
        let c = try world.store(device: 2)
        try save("zzzz", at: 1, a)
        let w1 = try response(a)
        try b.apply(w1)
        try save("aaaa", at: 2, b)
        let w2 = try response(b)
        try save("mmmm", at: 3, c)
        let w3 = try response(c)

        let orders: [[ReconcileResponse]] = [[w1, w3, w2], [w1, w2, w3], [w3, w2, w1], [w2, w3, w1]]
        var results: [String?] = []
        for (index, order) in orders.enumerated() {
            let store = try world.store(device: 10 + index)
            for delivery in order { try store.apply(delivery) }
            results.append(try value(store))
        }
        XCTAssertEqual(Set(results), ["mmmm"], "w2 replaced w1; between w2 and w3 the tie-break picks w3, in every order")
    }

    func testADeleteReplacesOnlyTheVersionsItSaw() throws {
        let world = try TestWorld()
        let c = try world.store(device: 0)
        let d = try world.store(device: 1)
        let e = try world.store(device: 2)
        let f = try world.store(device: 3)
        try save("zzzz", at: 5, c)
        try save("aaaa", at: 6, d)
        try e.apply(try response(c))
        try e.apply(try response(d))
        XCTAssertEqual(try value(e), "zzzz", "the tie-break shows the greater leaf")

        try f.apply(try response(c))
        try f.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: Array("k".utf8)) }
        try e.apply(try response(f))
        XCTAssertEqual(try value(e), "aaaa",
                       "the delete saw only the winner: the concurrent write it never saw survives (add-wins, nothing lost)")

        try d.apply(try response(f))
        try d.apply(try response(e))
        XCTAssertEqual(try value(d), "aaaa")
        XCTAssertEqual(d.stateDigest(), e.stateDigest())

        let g = try world.store(device: 4)
        try g.apply(try response(e))
        try g.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: Array("k".utf8)) }
        try e.apply(try response(g))
        XCTAssertNil(try value(e), "a delete that saw every version removes the key")
        try c.apply(try response(e))
        XCTAssertNil(try value(c), "and the original winner's device does not bring it back")
    }
}
