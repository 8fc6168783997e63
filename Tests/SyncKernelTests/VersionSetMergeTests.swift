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

    /// Soak seed 56: two devices wrote one content concurrently (a from its own "fold", b from
    /// the same "fold" by way of another value), so the devices' leaves agreed and they never
    /// exchanged the key; a store that met both writes (the soak's oracle) counted them as a
    /// conflict, so its digest differed from the devices' for good. Two concurrent writes of one
    /// content are kept apart (their vectors keep the merge order-free) but are no conflict: the
    /// key's item is its bare leaf, in any order.
    func testConcurrentWritesOfOneContentAreNoConflictWhateverStoreMeetsThem() throws {
        let world = try TestWorld()
        let a = try world.store(device: 0)
        let b = try world.store(device: 1)
        try save("fold", at: 1, a)
        let base = try response(a)
        try b.apply(base)
        try save("note", at: 2, a)
        try save("bucket", at: 3, b)
        try save("note", at: 2, b)
        XCTAssertEqual(a.stateDigest(), b.stateDigest(), "one content: the devices agree and exchange nothing")
        let (fromA, fromB) = (try response(a), try response(b))
        let vectorA = try XCTUnwrap(a.conflictVersions(namespace: RecordNamespace.name, key: Array("k".utf8)).first?.vector)
        let vectorB = try XCTUnwrap(b.conflictVersions(namespace: RecordNamespace.name, key: Array("k".utf8)).first?.vector)
        XCTAssertEqual(vectorA.relation(to: vectorB), .concurrent)

        for (index, order) in [[base, fromA, fromB], [fromB, fromA], [fromA, base, fromB, fromA]].enumerated() {
            let store = try world.store(device: 10 + index)
            for delivery in order { try store.apply(delivery) }
            XCTAssertEqual(try store.conflictedKeys(namespace: RecordNamespace.name), [], "order \(index): no conflict between equal contents")
            XCTAssertEqual(try store.openConflictCounts(), [RecordNamespace.name: 0], "order \(index)")
            let versions = try store.conflictVersions(namespace: RecordNamespace.name, key: Array("k".utf8))
            XCTAssertEqual(Set(versions.map(\.vector)), [vectorA, vectorB], "order \(index): both writes kept, neither lost")
            XCTAssertEqual(try value(store), "note")
            XCTAssertEqual(store.stateDigest(), a.stateDigest(), "order \(index): the store that met both agrees with the devices")
            try store.verifyStructures()
        }

        let c = try world.store(device: 2)
        try c.apply(base)
        try save("mmmm", at: 5, c)
        try a.apply(fromB)
        XCTAssertEqual(a.stateDigest(), b.stateDigest(), "a keeps b's write of its own content: still no conflict")
        let outcome = try a.apply(try response(c))
        XCTAssertEqual(outcome.conflictsOpened, [Array("k".utf8)])
        XCTAssertEqual(try a.conflictedKeys(namespace: RecordNamespace.name), [Array("k".utf8)],
                       "another content written concurrently is a conflict")
        XCTAssertNotEqual(a.stateDigest(), b.stateDigest(), "and its item commits to every kept version")
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(Row(id: "k", value: "zzzz", updatedAt: 9)) }
        XCTAssertEqual(try a.conflictedKeys(namespace: RecordNamespace.name), [])
        XCTAssertEqual(try a.conflictVersions(namespace: RecordNamespace.name, key: Array("k".utf8)).count, 1)
    }

    /// Soak seed 186, reduced: x and y write one content concurrently, then z, having seen only
    /// x's write, writes another. A store that meets x's and y's writes before z's must end where
    /// one that meets z's first does (z replaced x's write only, y's stands beside z's): a merge
    /// that folded x's and y's writes into one vector kept x's alive in the first store.
    func testWritesOfOneContentStayApartSoTheMergeIsOrderFree() throws {
        let world = try TestWorld()
        let (x, y, z) = (try world.store(device: 0), try world.store(device: 1), try world.store(device: 2))
        try save("fold", at: 1, x)
        let base = try response(x)
        for store in [y, z] { try store.apply(base) }
        try save("note", at: 2, x)
        try save("note", at: 2, y)
        let (fromX, fromY) = (try response(x), try response(y))
        try z.apply(fromX)
        try save("mmmm", at: 3, z)
        let fromZ = try response(z)

        var digests: [StateDigest] = []
        var kept: [Set<VersionVector>] = []
        for (index, order) in [[fromX, fromY, fromZ], [fromX, fromZ, fromY], [fromZ, fromY, fromX], [fromY, fromX, fromZ]].enumerated() {
            let store = try world.store(device: 10 + index)
            for delivery in order { try store.apply(delivery) }
            digests.append(store.stateDigest())
            kept.append(Set(try store.conflictVersions(namespace: RecordNamespace.name, key: Array("k".utf8)).map(\.vector)))
            XCTAssertEqual(try store.conflictedKeys(namespace: RecordNamespace.name), [Array("k".utf8)], "order \(index)")
        }
        XCTAssertEqual(Set(digests).count, 1, "every order ends in one digest")
        XCTAssertEqual(Set(kept).count, 1, "and in the same versions")
        XCTAssertEqual(kept.first?.count, 2, "z's write and y's, x's replaced by z's")
    }
}
