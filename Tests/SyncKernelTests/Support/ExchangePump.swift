import SyncKernel
import XCTest

/// Drives two stores through any exchange frame by frame, answering each step through the
/// exchange that recognises it (`ReconcileExchange`) and each response as `Replica` does, with every frame encoded and decoded on the way; records the kinds sent, the size of
/// each sketch and the depth of the deepest frame (one-way trips). With `wide`, both stores read
/// sketches past the standard capacity, as two replicas of this build do.
struct ExchangePump {
    let a: KernelStore
    let b: KernelStore
    var wide = false
    private(set) var kinds: [String] = []
    /// One-way trips: the depth of the deepest frame sent (the first is 1).
    private(set) var depth = 0
    /// Encoded bytes of every frame sent (compact vectors, spec header).
    private(set) var bytes = 0
    /// The symbol count of each `sketch_req` sent, in order.
    private(set) var sketchSizes: [Int] = []

    /// Sends `first` from `a` to `b` and answers until no frame is left; fails past `limit` frames.
    mutating func run(_ first: SyncFrame.Body, limit: Int = 200, file: StaticString = #filePath, line: UInt = #line) throws {
        var queue: [(body: SyncFrame.Body, receiver: KernelStore, depth: Int)] = [(first, b, 1)]
        while !queue.isEmpty {
            let (body, receiver, level) = queue.removeFirst()
            depth = max(depth, level)
            kinds.append(body.kind)
            if case .sketch(let sketch) = body { sketchSizes.append(sketch.symbols.count) }
            guard kinds.count <= limit else {
                XCTFail("the exchange did not end within \(limit) frames", file: file, line: line)
                return
            }
            let other = receiver === a ? b : a
            let frame = SyncFrame(account: [UInt8](repeating: 1, count: 32), schema: a.namespaces.schema, body: body,
                                  compactVectors: true)
            let encoded = frame.encoded()
            bytes += encoded.count
            for reply in try answer(try SyncFrame(decoding: encoded).body, at: receiver) {
                queue.append((reply, other, level + 1))
            }
        }
    }

    private func answer(_ body: SyncFrame.Body, at store: KernelStore) throws -> [SyncFrame.Body] {
        let peer = ExchangePeer(marks: ChangeMarks(), readsWide: wide)
        if let exchange = ReconcileMode.sketch.exchanges.first(where: { $0.step(of: body) != nil }) {
            return try exchange.answer(body, in: store, with: peer)
        }
        switch body {
        case .reconcileResponse(let response):
            let outcome = try store.apply(response)
            guard !response.isFinal else { return [] }
            return try store.respond(toKeys: outcome.keysToShipBack, namespace: response.namespace, isFinal: true).map { .reconcileResponse($0) }
        default:
            return []
        }
    }
}

/// The pump itself: it answers as a replica does and stops when nothing is left to send.
final class ExchangePumpSelfTests: XCTestCase {
    func testAWholeRequestIsAnsweredAppliedAndTheExchangeEnds() throws {
        let world = try TestWorld()
        let a = try world.store(device: 0)
        let b = try world.store(device: 1)
        try b.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(RecordNamespace.Row(id: "x", value: "v", updatedAt: 1))
        }
        var pump = ExchangePump(a: a, b: b)
        try pump.run(.reconcileRequest(ReconcileRequest(namespace: RecordNamespace.name, buckets: [])))
        XCTAssertEqual(pump.kinds, ["reconcile_req", "reconcile_resp"], "b answers with its row, a applies it, nothing is owed back")
        XCTAssertEqual(a.stateDigest(), b.stateDigest())
        var quiet = ExchangePump(a: a, b: b)
        try quiet.run(.reconcileRequest(ReconcileRequest(namespace: RecordNamespace.name, buckets: [], keys: [Array("absent".utf8)])))
        XCTAssertEqual(quiet.kinds, ["reconcile_req"], "a request for a key nobody holds is answered with silence")
    }
}
