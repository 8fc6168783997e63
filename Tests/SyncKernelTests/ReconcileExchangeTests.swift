import SyncKernel
import SyncKernelSimulator
import XCTest

/// The one reconcile-exchange interface: each mode's exchanges recognise disjoint steps, the spec
/// mode none of the sketch's, negotiation prefers the sketch exchange only where the mode speaks
/// it, and every exchange, driven through the protocol alone, converges two stores from the
/// digests that showed them divergent.
final class ReconcileExchangeTests: XCTestCase {
    private typealias Row = RecordNamespace.Row
    private let namespace = RecordNamespace.name

    /// One body of every kind a frame carries.
    private var everyBody: [SyncFrame.Body] {
        let response = ReconcileResponse(namespace: namespace, rows: [], tombstones: [], isFinal: true)
        return [
            .stateDigest(digest: [], probe: false), .heartbeat,
            .reconcileRequest(ReconcileRequest(namespace: namespace, buckets: [])),
            .reconcileResponse(response),
            .sketch(SketchRequest(namespace: namespace, root: [], symbols: [])),
            .rangeCompare(RangeCompare(namespace: namespace, nodes: [])),
            .push(response, root: [], change: 0),
            .pushAck(namespace: namespace, answer: .matched(pushChange: 0), change: 0, following: false),
        ]
    }

    func testEachStepIsRecognisedByOneExchangeOfItsModeAndTheSpecModeKnowsNoSketchStep() {
        let owners: [ReconcileMode: [String: StateDigest.Layout]] = [
            .sketch: ["reconcile_req": .merkle, "sketch_req": .setHash, "range_req": .setHash],
            .spec: ["reconcile_req": .merkle],
        ]
        for (mode, expected) in owners {
            for body in everyBody {
                let recognising = mode.exchanges.filter { $0.step(of: body) != nil }
                XCTAssertLessThanOrEqual(recognising.count, 1, "\(mode) \(body.kind)")
                XCTAssertEqual(recognising.first?.layout, expected[body.kind], "\(mode) \(body.kind)")
                if let step = recognising.first?.step(of: body) { XCTAssertEqual(step.namespace, namespace) }
            }
            XCTAssertEqual(Set(mode.exchanges.map(\.layout)).count, mode.exchanges.count, "one exchange per layout in \(mode)")
        }
        let sketch = SketchExchange()
        XCTAssertEqual(sketch.step(of: .sketch(SketchRequest(namespace: "n", root: [], symbols: []))),
                       ExchangeStep(namespace: "n", answersRound: true), "a sketch answers a step of the receiver's round")
        XCTAssertEqual(BucketizeExchange().step(of: .reconcileRequest(ReconcileRequest(namespace: "n", buckets: []))),
                       ExchangeStep(namespace: "n", answersRound: false), "a bucket request may start a round of the sibling's own")
    }

    func testNegotiationPrefersTheSketchExchangeOnlyWhereTheModeSpeaksIt() {
        XCTAssertEqual(ReconcileMode.sketch.exchange(announcedIn: SyncFrame.kernelCapabilities)?.layout, .setHash)
        XCTAssertEqual(ReconcileMode.sketch.exchange(announcedIn: [SyncFrame.sketchCapability])?.layout, .setHash)
        XCTAssertNil(ReconcileMode.sketch.exchange(announcedIn: [SyncFrame.compactCapability, "host1"]),
                     "capabilities other than an exchange's choose none")
        XCTAssertNil(ReconcileMode.spec.exchange(announcedIn: SyncFrame.kernelCapabilities), "a spec build never takes the sketch exchange")
        XCTAssertNil(ReconcileMode.spec.exchange(comparing: .setHash))
        XCTAssertEqual(ReconcileMode.spec.exchange(comparing: .merkle)?.layout, .merkle)
        for mode in [ReconcileMode.sketch, .spec] {
            XCTAssertEqual(mode.exchanges.last?.layout, mode.fallbackExchange.layout, "the fallback is the least preferred of \(mode)")
            XCTAssertNil(mode.fallbackExchange.capability, "every build speaks the fallback")
        }
        XCTAssertLessThan(ReconcileMode.sketch.rank(of: SketchExchange()), ReconcileMode.sketch.rank(of: BucketizeExchange()))
    }

    func testEachExchangeGivesADigestOfItsLayoutEqualForEqualStores() throws {
        let world = try TestWorld()
        let a = try world.store(device: 0)
        let b = try world.store(device: 1)
        try write(a, ids: 0..<40, value: "v")
        for response in try a.respond(to: ReconcileRequest(namespace: namespace, buckets: [])) { try b.apply(response) }
        for exchange in ReconcileMode.sketch.exchanges {
            let mine = try exchange.digest(of: a)
            XCTAssertEqual(mine.layout, exchange.layout)
            XCTAssertEqual(try exchange.encodedDigest(of: a), mine.encoded())
            XCTAssertEqual(try exchange.encodedDigest(of: b), mine.encoded(), "equal stores, equal \(exchange.layout) digests")
            XCTAssertEqual(StateDigest.claimedLayout(of: mine.encoded()), exchange.layout)
        }
        try write(b, ids: 40..<41, value: "w")
        for exchange in ReconcileMode.sketch.exchanges {
            XCTAssertNotEqual(try exchange.encodedDigest(of: a), try exchange.encodedDigest(of: b), "\(exchange.layout) sees the write")
        }
    }

    func testEveryExchangeDrivenThroughTheInterfaceConvergesTwoDivergentStores() throws {
        for exchange in ReconcileMode.sketch.exchanges {
            for (onlyA, onlyB) in [(0, 25), (30, 0), (12, 700)] {
                let world = try TestWorld()
                let a = try world.store(device: 0)
                let b = try world.store(device: 1)
                try write(a, ids: 0..<200, value: "v")
                for response in try a.respond(to: ReconcileRequest(namespace: namespace, buckets: [])) { try b.apply(response) }
                try write(a, ids: 1_000..<(1_000 + onlyA), value: "a")
                try write(b, ids: 5_000..<(5_000 + onlyB), value: "b")
                let label = "\(exchange.layout) with \(onlyA) rows only on a, \(onlyB) only on b"
                XCTAssertEqual(try exchange.digest(of: a).divergentNamespaces(from: try exchange.digest(of: b)), [namespace], label)
                // Each side starts a round when its sibling's digest differs, as replicas do; an
                // exchange that ships back converges with the first, the spec's with the second.
                var rounds = 0
                for (requester, responder) in [(a, b), (b, a)] where try exchange.encodedDigest(of: a) != exchange.encodedDigest(of: b) {
                    let theirs = try exchange.digest(of: responder)
                    let round = ExchangeRound(namespace: namespace, theirs: theirs,
                                              theirChanges: exchange.countsChanges ? responder.changeCounters() : [],
                                              counters: requester.changeCounters())
                    let first = try exchange.start(round, in: requester, with: ExchangePeer(marks: ChangeMarks(), readsWide: true))
                    var pump = ExchangePump(a: requester, b: responder, wide: true)
                    try pump.run(first)
                    rounds += 1
                }
                XCTAssertEqual(try exchange.encodedDigest(of: a), try exchange.encodedDigest(of: b), label)
                XCTAssertEqual(rounds, exchange.shipsBack || onlyA == 0 ? 1 : 2, label)
                let rowsA = try a.rows(RecordNamespace.self)
                XCTAssertEqual(rowsA.count, 200 + onlyA + onlyB, label)
                XCTAssertTrue(rowsA == (try b.rows(RecordNamespace.self)), "both hold the same rows: \(label)")
            }
        }
    }

    private func write(_ store: KernelStore, ids: Range<Int>, value: String) throws {
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in ids { try tx.save(Row(id: String(format: "row-%05d", index), value: value, updatedAt: 1)) }
        }
    }
}
