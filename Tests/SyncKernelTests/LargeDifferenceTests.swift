import SyncKernel
import SyncKernelSimulator
import XCTest

/// Large differences through the wide sketch tier (`WideSketch`): 10,000 and 50,000 differing
/// keys between two real stores converge through the stores' own frames in at most three round
/// trips, on one side and on both; the persisted tier is a function of the row set (blocks and
/// journal, whatever order and batching the writes came in, across reopening); a peer's
/// oversized or malformed sketch is refused; the largest sketch a sender builds is accepted.
final class LargeDifferenceTests: XCTestCase {
    private typealias Row = RecordNamespace.Row
    private let namespace = RecordNamespace.name

    /// A row id of 16 hex digits from `random`.
    private func id(_ random: inout SeededGenerator) -> String { String(format: "%016llx", random.next()) }

    /// Two stores sharing `shared` rows, then `difference` differing keys from `seed`: a tenth of
    /// them edits of shared rows, the rest inserts, all on `a` when `oneSided`, else alternately on
    /// `a` and `b`. Returns the stores and the exact number of differing items (the change
    /// counters' growth since the shared state, as a replica's marks give it).
    private func diverged(shared: Int, difference: Int, oneSided: Bool, seed: UInt64,
                          world: TestWorld) throws -> (KernelStore, KernelStore, Int) {
        let a = try world.store(device: 0)
        let b = try world.store(device: 1)
        var random = SeededGenerator(seed: seed)
        let sharedIDs = (0..<shared).map { _ in id(&random) }
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for key in sharedIDs { try tx.save(Row(id: key, value: "v", updatedAt: 1)) }
        }
        for response in try a.respond(to: ReconcileRequest(namespace: namespace, buckets: [])) { try b.apply(response) }
        XCTAssertEqual(a.stateDigest(), b.stateDigest())
        let marks = (a.changeCounters()[0], b.changeCounters()[0])
        let edits = min(difference / 10, shared)
        var onA: [Row] = []
        var onB: [Row] = []
        for index in 0..<difference {
            let row = index < edits ? Row(id: sharedIDs[index], value: "edited \(index)", updatedAt: 2)
                                    : Row(id: id(&random), value: "new \(index)", updatedAt: 2)
            if oneSided || index % 2 == 0 { onA.append(row) } else { onB.append(row) }
        }
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in for row in onA { try tx.save(row) } }
        try b.write(RecordNamespace.self) { tx throws(SyncKernelError) in for row in onB { try tx.save(row) } }
        let expected = Int(a.changeCounters()[0] - marks.0 + b.changeCounters()[0] - marks.1)
        return (a, b, expected)
    }

    /// Runs the exchange `a` starts with its first frame for `expected` items and checks it
    /// converges by the sketch, in at most three round trips counting the digest that starts it.
    private func assertConverges(_ a: KernelStore, _ b: KernelStore, expected: Int, _ label: String, verify: Bool = true) throws {
        let first = try a.sketchStart(for: namespace, expectedItems: expected, wide: true)
        guard case .sketch(let sketch) = first else { return XCTFail("\(label): a sketch starts it, not \(first.kind)") }
        XCTAssertGreaterThan(sketch.symbols.count, RatelessSketch.standardCapacity, label)
        var pump = ExchangePump(a: a, b: b, wide: true)
        try pump.run(first)
        XCTAssertEqual(a.stateDigest(), b.stateDigest(), "\(label): \(pump.kinds) \(pump.sketchSizes)")
        XCTAssertEqual(try a.rows(RecordNamespace.self).count, try b.rows(RecordNamespace.self).count, label)
        XCTAssertFalse(pump.kinds.contains("range_req"), "\(label): no trie comparison: \(Set(pump.kinds))")
        let roundTrips = (pump.depth + 1 + 1) / 2
        XCTAssertLessThanOrEqual(roundTrips, 3, "\(label): \(pump.depth) one-way trips after the digest")
        XCTAssertLessThanOrEqual(roundTrips, 2, "\(label): the sketch decoded at once: \(pump.sketchSizes)")
        if verify {
            try a.verifyStructures()
            try b.verifyStructures()
        }
    }

    func testTenThousandDifferencesConvergeInAtMostThreeRoundTripsOnOneSideAndOnBoth() throws {
        for oneSided in [false, true] {
            let (a, b, expected) = try diverged(shared: 2_000, difference: 10_000, oneSided: oneSided, seed: 23, world: try TestWorld())
            XCTAssertEqual(expected, 11_000, "an edit is two items")
            try assertConverges(a, b, expected: expected, "10,000 " + (oneSided ? "one-sided" : "two-sided"))
        }
    }

    func testAtScaleFiftyThousandDifferencesConvergeInAtMostThreeRoundTripsOnOneSideAndOnBoth() throws {
        for oneSided in [true, false] {
            let (a, b, expected) = try diverged(shared: 2_000, difference: 50_000, oneSided: oneSided, seed: 41, world: try TestWorld())
            try assertConverges(a, b, expected: expected, "50,000 " + (oneSided ? "one-sided" : "two-sided"), verify: false)
        }
    }

    func testAWholeNamespaceMissingOnOneSideShipsTheRowsAndLittleElse() throws {
        let world = try TestWorld()
        let a = try world.store(device: 0)
        let b = try world.store(device: 1)
        var random = SeededGenerator(seed: 5)
        try a.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for _ in 0..<3_000 { try tx.save(Row(id: id(&random), value: "v", updatedAt: 1)) }
        }
        let rowsOnly = try a.respond(to: ReconcileRequest(namespace: namespace, buckets: [])).reduce(0) { sum, response in
            sum + SyncFrame(account: [UInt8](repeating: 1, count: 32), schema: a.namespaces.schema,
                            body: .reconcileResponse(response), compactVectors: true).encoded().count
        }
        let first = try a.sketchStart(for: namespace, expectedItems: 3_000, wide: true, peerRoot: b.stateDigest().roots[0])
        guard case .sketch(let sketch) = first else { return XCTFail("a sketch, not \(first.kind)") }
        XCTAssertEqual(sketch.symbols.count, 1, "an empty peer gets one symbol, not a sketch sized for 3,000 items")
        var pump = ExchangePump(a: a, b: b, wide: true)
        try pump.run(first)
        XCTAssertEqual(a.stateDigest(), b.stateDigest())
        XCTAssertEqual(pump.kinds, ["sketch_req", "reconcile_req", "reconcile_resp"])
        XCTAssertLessThanOrEqual(pump.bytes, rowsOnly + 400, "the rows, a one-symbol sketch and a whole request")
    }

    func testTheWideTierIsAFunctionOfTheRowSetWhateverTheWriteOrderAndBatching() throws {
        let world = try TestWorld()
        var random = SeededGenerator(seed: 77)
        let ids = (0..<20_000).map { _ in id(&random) }
        let finalRows = ids.enumerated().map { Row(id: $1, value: $0 % 7 == 0 ? "edited" : "v", updatedAt: $0 % 7 == 0 ? 2 : 1) }
        // One store takes the rows in one transaction (past the journal's limit: blocks written),
        // then edits in small transactions (journal entries), then a stray key added and deleted.
        let pathX = world.path()
        let x = try world.store(path: pathX)
        try x.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for key in ids { try tx.save(Row(id: key, value: "v", updatedAt: 1)) }
        }
        for chunk in stride(from: 0, to: ids.count, by: 700) {
            try x.write(RecordNamespace.self) { tx throws(SyncKernelError) in
                for index in chunk..<min(chunk + 700, ids.count) where index % 7 == 0 { try tx.save(finalRows[index]) }
            }
        }
        try x.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(Row(id: "stray", value: "s", updatedAt: 1)) }
        try x.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: Array("stray".utf8)) }
        // The other takes the final rows in reverse, in transactions of 300 (journal, then blocks).
        let pathY = world.path()
        let y = try world.store(path: pathY)
        let reversed = Array(finalRows.reversed())
        for chunk in stride(from: 0, to: reversed.count, by: 300) {
            try y.write(RecordNamespace.self) { tx throws(SyncKernelError) in
                for row in reversed[chunk..<min(chunk + 300, reversed.count)] { try tx.save(row) }
            }
        }
        XCTAssertEqual(x.stateDigest(), y.stateDigest())
        func wideSymbols(_ store: KernelStore) throws -> [CodedSymbol] {
            guard case .sketch(let sketch) = try store.sketchStart(for: namespace, expectedItems: 100_000, wide: true) else {
                XCTFail("a wide sketch")
                return []
            }
            return sketch.symbols
        }
        let symbols = try wideSymbols(x)
        XCTAssertEqual(symbols.count, KernelStore.sketchSymbols(forExpectedItems: 100_000, capacity: SketchRequest.maxSymbols))
        XCTAssertGreaterThan(symbols.count, RatelessSketch.standardCapacity)
        XCTAssertEqual(symbols, try wideSymbols(y), "equal row sets, equal wide symbols")
        try x.verifyStructures()
        try y.verifyStructures()
        x.close()
        y.close()
        for path in [pathX, pathY] {
            let reopened = try world.store(path: path)
            XCTAssertEqual(try wideSymbols(reopened), symbols, "the persisted blocks and journal load to the same tier")
            try reopened.verifyStructures()
            reopened.close()
        }
    }

    func testTheLargestSketchASenderBuildsIsAcceptedByTheReceiver() throws {
        let account = [UInt8](repeating: 1, count: 32)
        let schema = SchemaFingerprint(value: 7)
        var random = SeededGenerator(seed: 9)
        func symbols(_ count: Int, keyBytes: Int) -> [CodedSymbol] {
            (0..<count).map { index in
                var key = random.bytes(keyBytes)
                key[0] |= 1
                key[key.count - 1] |= 1
                var framed: [UInt8] = []
                LEB128.append(UInt64(keyBytes), to: &framed)
                return CodedSymbol(count: Int64(index % 3) - 1, keySum: framed + key, tagSum: UInt32(truncatingIfNeeded: random.next()))
            }
        }
        for (count, keyBytes, least) in [(SketchRequest.maxSymbols, 16, 240_000), (60_000, 8, 25_000), (5_000, 4_000, 4_000)] {
            let all = symbols(count, keyBytes: keyBytes)
            let admitted = SketchRequest.admittedPrefix(all)
            XCTAssertLessThan(admitted.count, all.count, "\(count) symbols of \(keyBytes)-byte keys are cut")
            XCTAssertGreaterThanOrEqual(admitted.count, least, "\(count) symbols of \(keyBytes)-byte keys: \(admitted.count) admitted")
            for compact in [true, false] {
                let frame = SyncFrame(account: account, schema: schema, body: .sketch(SketchRequest(namespace: "records",
                                      root: [UInt8](repeating: 2, count: 8), symbols: admitted)), compactHeader: compact)
                let bytes = frame.encoded()
                XCTAssertLessThanOrEqual(bytes.count, SyncFrame.maxFrameBytes)
                guard case .sketch(let decoded) = try SyncFrame(decoding: bytes, account: account).body else {
                    return XCTFail("a sketch")
                }
                XCTAssertEqual(decoded.symbols.count, admitted.count, "\(keyBytes)-byte keys, compact \(compact)")
            }
        }
    }

    func testRejectAWideSketchThatIsTruncatedOrOversized() throws {
        let account = [UInt8](repeating: 1, count: 32)
        let schema = SchemaFingerprint(value: 7)
        let symbols = (0..<(RatelessSketch.standardCapacity * 2)).map { CodedSymbol(count: 1, keySum: [3, 1, 2, UInt8($0 % 250 + 1)], tagSum: 5) }
        let frame = SyncFrame(account: account, schema: schema,
                              body: .sketch(SketchRequest(namespace: "records", root: [UInt8](repeating: 2, count: 8), symbols: symbols)))
        let bytes = frame.encoded()
        XCTAssertNoThrow(try SyncFrame(decoding: bytes, account: account), "8,192 symbols read")
        var truncated = bytes
        truncated.removeLast(3)
        XCTAssertThrowsError(try SyncFrame(decoding: truncated, account: account))
        var writer = CanonicalWriter()
        writer.writeMap { map in
            map.entry("type") { $0.write(SyncFrame.payloadType) }
            map.entry("kind") { $0.write("sketch_req") }
            map.entry("account") { $0.write(bytes: account) }
            map.entry("schema") { $0.write(schema.value) }
            map.entry("ns") { $0.write("records") }
            map.entry("root") { $0.write(bytes: [UInt8](repeating: 2, count: 8)) }
            var claim: [UInt8] = []
            LEB128.append(UInt64(SketchRequest.maxSymbols + 1), to: &claim)
            map.entry("symbols") { $0.write(bytes: claim + SketchCodec.encode(symbols.prefix(4)).dropFirst()) }
        }
        XCTAssertThrowsError(try SyncFrame(decoding: writer.bytes, account: account)) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .malformedFrame, "a claim past SketchRequest.maxSymbols")
        }
        let world = try TestWorld()
        let store = try world.store(device: 0)
        let hostile = SketchRequest(namespace: namespace, root: [UInt8](repeating: 2, count: 8),
                                    symbols: (0..<(SketchRequest.maxSymbols + 1)).map { symbols[$0 % symbols.count] })
        XCTAssertThrowsError(try store.decide(hostile, wide: true)) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .malformedFrame)
        }
    }
}
