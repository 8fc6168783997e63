import SyncKernel
import SyncKernelSimulator
import XCTest

/// The sketch exchange between two stores, frame by frame through `ExchangePump`: a sketch too
/// small for the difference grows by doubling, one past the capacity falls back to the trie
/// comparison, an empty side asks for or ships the whole namespace, change marks turn offers
/// into wants, split responses keep every row once, and the exchange ends in exactly the state
/// the spec's exchange reaches from the same pair.
final class SketchExchangeTests: XCTestCase {
    private typealias Row = RecordNamespace.Row
    private let namespace = RecordNamespace.name

    private func key(_ id: String) -> [UInt8] { Array(id.utf8) }

    /// Two stores (devices 0 and 1) sharing the history of `rows` rows written on the first.
    private func pair(rows: Int, world: TestWorld) throws -> (KernelStore, KernelStore) {
        let a = try world.store(device: 0)
        let b = try world.store(device: 1)
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<rows { try tx.save(Row(id: String(format: "row-%05d", index), value: "v", updatedAt: 1)) }
        }
        for response in try a.respond(to: ReconcileRequest(namespace: namespace, buckets: [])) { try b.apply(response) }
        XCTAssertEqual(a.stateDigest(), b.stateDigest(), "both hold the rows one device wrote")
        return (a, b)
    }

    /// Asserts both stores hold one state: digests, rows and the bookkeeping of `keys`.
    private func assertSameState(_ a: KernelStore, _ b: KernelStore, keys: [[UInt8]] = [], _ message: String = "",
                                 file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(a.stateDigest(), b.stateDigest(), message, file: file, line: line)
        XCTAssertEqual(try a.rows(RecordNamespace.self), try b.rows(RecordNamespace.self), message, file: file, line: line)
        for key in keys {
            let mine = try a.version(namespace: namespace, key: key)
            let theirs = try b.version(namespace: namespace, key: key)
            XCTAssertEqual(mine?.vector, theirs?.vector, "\(message) key \(String(decoding: key, as: UTF8.self))", file: file, line: line)
            XCTAssertEqual(mine?.contentVector, theirs?.contentVector, "\(message) key \(String(decoding: key, as: UTF8.self))",
                           file: file, line: line)
        }
    }

    func testASketchFarTooSmallIsAnsweredWithDoublingSketchesUntilItDecodes() throws {
        let world = try TestWorld()
        let (a, b) = try pair(rows: 100, world: world)
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<300 { try tx.save(Row(id: String(format: "new-%05d", index), value: "a", updatedAt: 2)) }
        }
        guard case .sketch(let small) = try a.sketchStart(for: namespace, expectedItems: 2) else {
            return XCTFail("an expected difference of 2 out of 400 items starts with a sketch")
        }
        XCTAssertEqual(small.symbols.count, KernelStore.sketchSymbols(forExpectedItems: 2))
        XCTAssertEqual(small.symbols.count, 12)
        guard case .answer(.sketch(let larger)) = try b.decide(small) else {
            return XCTFail("12 symbols cannot decode 300 items")
        }
        XCTAssertEqual(larger.symbols.count, 24, "the receiver answers with twice as many of its own symbols")
        XCTAssertEqual(larger.root, Array(b.stateDigest().roots[0].prefix(SketchRequest.rootPrefixBytes)), "the larger sketch carries the receiver's root")

        var pump = ExchangePump(a: a, b: b)
        try pump.run(.sketch(small))
        try assertSameState(a, b)
        XCTAssertEqual(try b.rows(RecordNamespace.self).count, 400)
        let sizes = pump.sketchSizes
        XCTAssertGreaterThanOrEqual(sizes.count, 6, "\(sizes)")
        XCTAssertEqual(sizes.first, 12)
        for index in sizes.indices.dropFirst() { XCTAssertEqual(sizes[index], 2 * sizes[index - 1], "\(sizes)") }
        XCTAssertGreaterThan(try XCTUnwrap(sizes.last), 300, "\(sizes): no sketch smaller than the difference decodes it")
        let afterSketches = pump.kinds.drop { $0 == "sketch_req" }
        XCTAssertFalse(afterSketches.isEmpty)
        XCTAssertTrue(afterSketches.allSatisfy { $0 == "reconcile_resp" }, "\(pump.kinds)")
    }

    func testADifferenceBeyondTheSketchCapacityFallsBackToTheTrieComparison() throws {
        let world = try TestWorld()
        let (a, b) = try pair(rows: 50, world: world)
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<3_300 { try tx.save(Row(id: String(format: "new-%05d", index), value: "a", updatedAt: 2)) }
            try tx.save(Row(id: "row-00007", value: "edited on a", updatedAt: 2))
        }
        try b.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<400 { try tx.save(Row(id: String(format: "other-%05d", index), value: "b", updatedAt: 2)) }
            try tx.delete(key: key("row-00009"))
        }
        guard case .sketch(let start) = try a.sketchStart(for: namespace, expectedItems: nil) else {
            return XCTFail("an unknown difference starts with a sketch")
        }
        var pump = ExchangePump(a: a, b: b)
        try pump.run(.sketch(start))
        try assertSameState(a, b, keys: [key("row-00007"), key("row-00009")])
        XCTAssertEqual(pump.sketchSizes.last, RatelessSketch.standardCapacity, "\(pump.sketchSizes)")
        XCTAssertTrue(pump.kinds.contains("range_req"), "\(pump.kinds)")
        XCTAssertEqual(pump.kinds.firstIndex(of: "range_req"), pump.sketchSizes.count, "the fallback comes right after the full sketch")
        XCTAssertEqual(try b.rows(RecordNamespace.self).count, 50 + 3_300 + 400 - 1)
        XCTAssertEqual(try b.row(RecordNamespace.self, key: key("row-00007"))?.value, "edited on a")
        XCTAssertNil(try a.row(RecordNamespace.self, key: key("row-00009")))
    }

    func testAnEmptyDifferenceAnswersNothingUnlessTheRootsDisagree() throws {
        let world = try TestWorld()
        let (a, b) = try pair(rows: 60, world: world)
        guard case .sketch(let request) = try a.sketchStart(for: namespace, expectedItems: nil) else {
            return XCTFail("a sketch")
        }
        XCTAssertEqual(request.root, Array(a.stateDigest().roots[0].prefix(SketchRequest.rootPrefixBytes)))
        XCTAssertEqual(try b.decide(request), .differs(wanted: [], offered: []))
        XCTAssertEqual(try b.answer(request, mark: nil), .responses([]))

        let otherRoot = SketchRequest(namespace: namespace, root: [UInt8](repeating: 7, count: 32), symbols: request.symbols)
        guard case .answer(.ranges(let compare)) = try b.decide(otherRoot) else {
            return XCTFail("equal symbols under another root mean a collision: the trie comparison takes over")
        }
        XCTAssertEqual(compare.nodes.map(\.node), PrefixNode.root.children)
        let (responses, next) = try a.answer(compare)
        XCTAssertEqual(responses, [])
        XCTAssertEqual(next, [], "equal stores agree on every node")
    }

    func testRejectASketchWithNoSymbolOrMoreThanTheCapacity() throws {
        let world = try TestWorld()
        let (a, b) = try pair(rows: 5, world: world)
        guard case .sketch(let request) = try a.sketchStart(for: namespace, expectedItems: nil) else { return XCTFail("a sketch") }
        let symbols = request.symbols
        for count in [0, SketchRequest.maxSymbols + 1] {
            let hostile = SketchRequest(namespace: namespace, root: request.root,
                                        symbols: (0..<count).map { symbols[$0 % symbols.count] })
            XCTAssertThrowsError(try b.decide(hostile), "\(count) symbols") { error in
                XCTAssertEqual((error as? SyncKernelError)?.code, .malformedFrame)
            }
        }
        let elsewhere = SketchRequest(namespace: "nope", root: request.root, symbols: symbols)
        XCTAssertThrowsError(try b.decide(elsewhere)) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .unknownNamespace)
        }
        XCTAssertEqual(a.stateDigest(), b.stateDigest(), "nothing moved")
    }

    func testAnEmptyStoreAsksForTheWholeNamespaceAndAFullOneShipsEverything() throws {
        let rows = (0..<50).map { Row(id: String(format: "row-%05d", $0), value: "v\($0)", updatedAt: 1) }
        // The full store's sketch reaches the empty one: it asks for everything.
        do {
            let world = try TestWorld()
            let full = try world.store(device: 0)
            let empty = try world.store(device: 1)
            try full.write(RecordNamespace.self) { tx throws(SyncKernelError) in for row in rows { try tx.save(row) } }
            guard case .sketch(let request) = try full.sketchStart(for: namespace, expectedItems: nil) else { return XCTFail("a sketch") }
            XCTAssertEqual(try empty.decide(request),
                           .answer(.whole(ReconcileRequest(namespace: namespace, buckets: []))))
            var pump = ExchangePump(a: full, b: empty)
            try pump.run(.sketch(request))
            XCTAssertEqual(pump.kinds, ["sketch_req", "reconcile_req", "reconcile_resp"])
            try assertSameState(full, empty, keys: rows.map { key($0.id) })
            XCTAssertEqual(try empty.rows(RecordNamespace.self), rows)
        }
        // The empty store's sketch reaches the full one: it ships everything at once.
        do {
            let world = try TestWorld()
            let full = try world.store(device: 0)
            let empty = try world.store(device: 1)
            try full.write(RecordNamespace.self) { tx throws(SyncKernelError) in for row in rows { try tx.save(row) } }
            guard case .sketch(let request) = try empty.sketchStart(for: namespace, expectedItems: nil) else { return XCTFail("a sketch") }
            XCTAssertEqual(request.symbols.first?.count, 0)
            guard case .answer(.responses(let responses)) = try full.decide(request) else {
                return XCTFail("a full store answers an empty one with its rows")
            }
            XCTAssertEqual(responses.flatMap(\.rows).count, rows.count)
            var pump = ExchangePump(a: empty, b: full)
            try pump.run(.sketch(request))
            XCTAssertEqual(pump.kinds, ["sketch_req", "reconcile_resp"])
            try assertSameState(full, empty, keys: rows.map { key($0.id) })
        }
    }
}

extension SketchExchangeTests {
    private static let keySpace = 160

    /// A pair sharing 120 rows, then diverging by seeded inserts, edits and deletes on both sides
    /// (values name their side, so no edit is identical on both). Building twice with one seed
    /// gives two pairs in one state.
    private func divergentPair(seed: UInt64, world: TestWorld) throws -> (KernelStore, KernelStore) {
        let a = try world.store(device: 0)
        let b = try world.store(device: 1)
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<120 { try tx.save(Row(id: String(format: "k%03d", index), value: "base-\(index)", updatedAt: 1)) }
        }
        for response in try a.respond(to: ReconcileRequest(namespace: namespace, buckets: [])) { try b.apply(response) }
        var random = SeededGenerator(seed: seed)
        for batch in 0..<6 {
            for (side, store) in [("a", a), ("b", b)] {
                try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
                    for op in 0..<(2 + Int(random.next() % 8)) {
                        let id = String(format: "k%03d", Int(random.next() % UInt64(SketchExchangeTests.keySpace)))
                        if random.chance(0.25) {
                            try tx.delete(key: Array(id.utf8))
                        } else {
                            try tx.save(Row(id: id, value: "\(side)-\(batch)-\(op)", updatedAt: Int64(10 + batch)))
                        }
                    }
                }
            }
        }
        return (a, b)
    }

    func testTheSketchExchangeEndsInTheStateTheSpecReachesFromTheSamePair() throws {
        let keys = (0..<SketchExchangeTests.keySpace).map { key(String(format: "k%03d", $0)) }
        for seed: UInt64 in [1, 2, 3, 4, 5, 6] {
            let world = try TestWorld()
            let (fastA, fastB) = try divergentPair(seed: seed, world: world)
            let (specA, specB) = try divergentPair(seed: seed, world: world)
            XCTAssertEqual(fastA.stateDigest(), specA.stateDigest(), "seed \(seed): the copies start alike")
            XCTAssertEqual(fastB.stateDigest(), specB.stateDigest(), "seed \(seed): the copies start alike")
            XCTAssertNotEqual(fastA.stateDigest(), fastB.stateDigest(), "seed \(seed): the pair diverged")

            var pump = ExchangePump(a: fastA, b: fastB)
            var exchanges = 0
            while fastA.stateDigest() != fastB.stateDigest(), exchanges < 3 {
                try pump.run(try fastA.sketchStart(for: namespace, expectedItems: nil))
                exchanges += 1
            }
            XCTAssertEqual(exchanges, 1, "seed \(seed): one exchange converges (\(pump.kinds))")

            var rounds = 0
            while specA.stateDigest() != specB.stateDigest(), rounds < 5 {
                for response in try specB.respond(to: specA.reconcileRequest(for: namespace)) { try specA.apply(response) }
                for response in try specA.respond(to: specB.reconcileRequest(for: namespace)) { try specB.apply(response) }
                rounds += 1
            }

            XCTAssertLessThan(rounds, 5, "seed \(seed): the spec converges")
            try assertSameState(fastA, fastB, keys: keys, "seed \(seed), sketch pair")
            try assertSameState(fastA, specA, "seed \(seed), sketch against spec")
            try assertSameState(fastA, specB, "seed \(seed), sketch against spec")
            // The spec converges leaves, not vectors: a side whose own content won a merge on
            // the other side never hears of the other's merged vector. The sketch exchange's
            // ship-backs leave both sides holding everything the spec pair learned between them.
            for key in keys {
                let label = "seed \(seed), key \(String(decoding: key, as: UTF8.self))"
                let fast = try fastA.version(namespace: namespace, key: key)
                let (left, right) = (try specA.version(namespace: namespace, key: key), try specB.version(namespace: namespace, key: key))
                XCTAssertEqual(fast == nil, left == nil, label)
                guard let fast, let left, let right else { continue }
                XCTAssertEqual(fast.vector, left.vector.merged(with: right.vector), label)
                XCTAssertTrue([left.contentVector, right.contentVector].contains(fast.contentVector), label)
            }
        }
    }

    func testAMarkTurnsAnOfferOfAVersionThePeerHeldIntoAWant() throws {
        let world = try TestWorld()
        let (a, b) = try pair(rows: 20, world: world)
        // b edits row-00001 and a takes the edit: equal roots again, at b's counter `mark`.
        let before = try XCTUnwrap(b.changeCounters().first)
        try b.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "row-00001", value: "edited on b", updatedAt: 2))
        }
        for response in try b.respond(toKeys: [key("row-00001")], namespace: namespace) { try a.apply(response) }
        XCTAssertEqual(a.stateDigest(), b.stateDigest())
        let mark = try XCTUnwrap(b.changeCounters().first)
        XCTAssertEqual(mark, before + 2, "an edit takes one item out and puts one in")
        // Since the mark: a replaces the version both held, b edits another row.
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "row-00001", value: "newer on a", updatedAt: 3))
        }
        try b.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "row-00002", value: "newer on b", updatedAt: 3))
        }
        guard case .sketch(let request) = try a.sketchStart(for: namespace, expectedItems: nil) else { return XCTFail("a sketch") }
        guard case .differs(let wanted, let offered) = try b.decide(request) else {
            return XCTFail("four differing items decode from 64 symbols")
        }
        XCTAssertEqual(offered, [key("row-00001"), key("row-00002")], "the decode names both of b's versions")
        XCTAssertEqual(wanted, [key("row-00001"), key("row-00002")])
        func shipped(_ mark: UInt64?) throws -> (rows: [[UInt8]], want: [[UInt8]]) {
            let parts = try b.responses(namespace, wanted: wanted, offered: offered, mark: mark)
            let keys = try parts.flatMap(\.rows).map { try RecordNamespace.decodeRow(bytes: $0.row).id }.map { Array($0.utf8) }
            return (keys, parts.first?.want ?? [])
        }
        XCTAssertEqual(try shipped(mark).rows, [key("row-00002")], "b's row-00001 last moved before the mark: a replaced it since")
        XCTAssertEqual(try shipped(mark).want, [key("row-00001")], "a key whose row ships is not wanted as well")
        XCTAssertEqual(try shipped(nil).want, [], "every wanted key's row ships: nothing is wanted")
        XCTAssertEqual(try shipped(nil).rows, [key("row-00001"), key("row-00002")], "without a mark every held version is offered")
        XCTAssertEqual(try shipped(before).rows, [key("row-00001"), key("row-00002")],
                       "b's row-00001 moved after an earlier mark: the peer never held it then")

        // The rest of the exchange under the mark: b ships row-00002 and wants row-00001 back.
        guard case .responses(let responses) = try b.answer(request, mark: mark) else { return XCTFail("responses") }
        XCTAssertEqual(responses.flatMap(\.rows).count, 1)
        var shipBack: [[UInt8]] = []
        for response in responses { shipBack += try a.apply(response).keysToShipBack }
        XCTAssertEqual(shipBack, [key("row-00001")])
        for response in try a.respond(toKeys: shipBack, namespace: namespace, isFinal: true) { try b.apply(response) }
        try assertSameState(a, b, keys: [key("row-00001"), key("row-00002")])
        XCTAssertEqual(try b.row(RecordNamespace.self, key: key("row-00001"))?.value, "newer on a")
        XCTAssertEqual(try a.row(RecordNamespace.self, key: key("row-00002"))?.value, "newer on b")
    }

    func testASplitResponseKeepsEveryRowOnceAndItsWantsAndTombstonesOnTheFirstPart() throws {
        let devices = [TestWorld.device(0), TestWorld.device(1)]
        let big = String(repeating: "x", count: 1 << 20)
        var rows = (0..<10).map { index in
            ShippedRow(row: RecordNamespace.rowEncoding(of: Row(id: "big-\(index)", value: big, updatedAt: 1)),
                       vector: VersionVector([devices[0]: UInt64(index + 1), devices[1]: 2]))
        }
        rows.insert(ShippedRow(row: RecordNamespace.rowEncoding(of: Row(id: "huge", value: String(repeating: "y", count: 5 << 20),
                                                                        updatedAt: 1)),
                               vector: VersionVector([devices[1]: 1])), at: 4)
        rows.append(ShippedRow(row: RecordNamespace.rowEncoding(of: Row(id: "small", value: "s", updatedAt: 1)), vector: nil))
        let tombstones = [Tombstone(key: key("gone"), vector: VersionVector([devices[0]: 9]))]
        let want = [key("wanted-1"), key("wanted-2")]
        let response = ReconcileResponse(namespace: namespace, rows: rows, tombstones: tombstones, want: want, isFinal: true)

        let parts = response.split()
        XCTAssertGreaterThanOrEqual(parts.count, 4, "\(parts.map(\.rows.count))")
        XCTAssertEqual(parts.flatMap(\.rows), rows, "every row exactly once, in order")
        XCTAssertEqual(parts.first?.want, want)
        XCTAssertEqual(parts.first?.tombstones, tombstones)
        for (index, part) in parts.enumerated() {
            XCTAssertEqual(part.namespace, namespace)
            XCTAssertTrue(part.isFinal, "part \(index)")
            XCTAssertFalse(part.rows.isEmpty, "part \(index)")
            if index > 0 {
                XCTAssertEqual(part.want, [], "part \(index)")
                XCTAssertEqual(part.tombstones, [], "part \(index)")
            }
            let bytes = part.rows.reduce(0) { $0 + $1.encodedSize }
            XCTAssertTrue(bytes <= ReconcileResponse.rowBytesPerFrame || part.rows.count == 1,
                          "part \(index): \(bytes) bytes in \(part.rows.count) rows")
            for compact in [false, true] {
                let frame = SyncFrame(account: [UInt8](repeating: 1, count: 32), schema: SchemaFingerprint(value: 3),
                                      body: .reconcileResponse(part), compactVectors: compact)
                XCTAssertEqual(try SyncFrame(decoding: frame.encoded()).body, .reconcileResponse(part), "part \(index)")
            }
        }
        let huge = try XCTUnwrap(parts.first { $0.rows.contains(rows[4]) })
        XCTAssertEqual(huge.rows.count, 1, "a row over the budget travels alone")
        XCTAssertEqual(ReconcileResponse(namespace: namespace, rows: [rows[0]], tombstones: []).split().count, 1)
    }

    func testASplitResponseNeverNamesMoreDevicesThanAReceiverReads() throws {
        let writers = [TestWorld.device(0), TestWorld.device(1)]
        let edited = DeviceTable.maxDevices * 2 + 300
        let rows = (0..<edited).map { index in
            let row = Row(id: "edited-\(index)", value: "v", updatedAt: 2)
            let created = DeviceID.creation(key: key("edited-\(index)"), leaf: RecordNamespace.leaf(of: Row(id: "edited-\(index)",
                                                                                                        value: "first", updatedAt: 1)).hash)
            return ShippedRow(row: RecordNamespace.rowEncoding(of: row), vector: VersionVector([created: 1, writers[index % 2]: 2]),
                              writer: writers[index % 2])
        }
        let tombstones = (0..<300).map { index in
            Tombstone(key: key("gone-\(index)"), vector: VersionVector([DeviceID.creation(key: key("gone-\(index)"), leaf: [9]): 1]))
        }
        let response = ReconcileResponse(namespace: namespace, rows: rows, tombstones: tombstones)
        XCTAssertGreaterThan(DeviceTable(covering: response).devices.count, DeviceTable.maxDevices, "whole, it names too many")
        let parts = response.split()
        XCTAssertEqual(parts.flatMap(\.rows), rows, "every row exactly once, in order")
        XCTAssertEqual(parts.flatMap(\.tombstones), tombstones)
        XCTAssertGreaterThanOrEqual(parts.count, 3)
        for (index, part) in parts.enumerated() {
            XCTAssertLessThanOrEqual(DeviceTable(covering: part).devices.count, DeviceTable.maxDevices, "part \(index)")
            let frame = SyncFrame(account: [UInt8](repeating: 1, count: 32), schema: SchemaFingerprint(value: 3),
                                  body: .reconcileResponse(part), compactVectors: true)
            XCTAssertEqual(try SyncFrame(decoding: frame.encoded()).body, .reconcileResponse(part), "part \(index) reads back")
        }
        let whole = SyncFrame(account: [UInt8](repeating: 1, count: 32), schema: SchemaFingerprint(value: 3),
                              body: .reconcileResponse(response), compactVectors: true)
        XCTAssertThrowsError(try SyncFrame(decoding: whole.encoded()), "the receiver's bound is the one split keeps") { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .malformedFrame)
        }
    }

    func testManyRowsEditedOnOneSideReachTheOtherThroughTheStoresOwnResponses() throws {
        let world = try TestWorld()
        let (a, b) = try pair(rows: DeviceTable.maxDevices + 500, world: world)
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<(DeviceTable.maxDevices + 500) {
                try tx.save(Row(id: String(format: "row-%05d", index), value: "edited", updatedAt: 99))
            }
        }
        var rounds = 0
        while a.stateDigest() != b.stateDigest(), rounds < 4 {
            rounds += 1
            let parts = try a.respond(toKeys: try a.leaves(namespace: namespace).map(\.key), namespace: namespace)
            XCTAssertGreaterThan(parts.count, 1, "the edits name more creation dimensions than one table holds")
            for part in parts {
                let frame = SyncFrame(account: [UInt8](repeating: 1, count: 32), schema: a.namespaces.schema,
                                      body: .reconcileResponse(part), compactVectors: true)
                guard case .reconcileResponse(let received) = try SyncFrame(decoding: frame.encoded()).body else {
                    return XCTFail("a response")
                }
                try b.apply(received)
            }
        }
        XCTAssertEqual(a.stateDigest(), b.stateDigest(), "after \(rounds) rounds")
    }

    func testAShippedRowsOwnCreationTravelsAsAReferenceAndIsStoredResolved() throws {
        let world = try TestWorld()
        let (a, b) = try pair(rows: 10, world: world)
        let fresh = Row(id: "fresh", value: "new on a", updatedAt: 5)
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(fresh) }
        let created = DeviceID.creation(key: key("fresh"), leaf: RecordNamespace.leaf(of: fresh).hash)
        let shipped = try a.respond(toKeys: [key("fresh")], namespace: namespace)
        let compact = SyncFrame(account: [UInt8](repeating: 1, count: 32), schema: a.namespaces.schema,
                                body: .reconcileResponse(try XCTUnwrap(shipped.first)), compactVectors: true).encoded()
        let plain = SyncFrame(account: [UInt8](repeating: 1, count: 32), schema: a.namespaces.schema,
                              body: .reconcileResponse(try XCTUnwrap(shipped.first))).encoded()
        XCTAssertLessThan(compact.count + 20, plain.count, "the creation costs a one-byte reference, not 32 bytes")
        guard case .reconcileResponse(let received) = try SyncFrame(decoding: compact).body else { return XCTFail("a response") }
        XCTAssertEqual(received.rows.first?.vector, VersionVector([DeviceID.ownCreation: 1]))
        try b.apply(received)
        XCTAssertEqual(try b.version(namespace: namespace, key: key("fresh"))?.vector, VersionVector([created: 1]),
                       "the reference is resolved to the row's own creation before anything is stored")
        XCTAssertEqual(a.stateDigest(), b.stateDigest())
    }
}
