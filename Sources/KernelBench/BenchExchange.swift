import SyncKernel

/// Drives two stores to equal roots the way two replicas would, frame by frame, and counts what
/// the wire would carry and what each side spent.
///
/// The exchange alternates: in round r the requester is A for even r and B for odd r. The
/// responder sends its `state_digest`; the requester compares it with its own and stops when they
/// match; otherwise it starts a pull per divergent namespace (`fast`: a `sketch_req` sized from
/// the `ChangeMarks` of the last synced exchange; `spec`: a `reconcile_req` of range
/// fingerprints), and every frame is answered as `Replica` answers it until no frame is left in
/// flight. Every frame is encoded with the `sync_delta` codec and decoded under the wire limits
/// on the other side, so bytes and refusals are those of the wire. The two replicas are in the
/// steady state of siblings that synced before (`recordSynced`): each already knows the other
/// speaks the sketch exchange and reads compact frames, so, as `Replica` does then, no frame
/// repeats the capabilities and `fast` frames are written with the compact header (`spec` frames
/// exactly as the spec's), and sketches may use the wide tier (`SyncFrame.wideCapability`) unless
/// the configuration runs the earlier build's exchange (`BenchConfig.wide`).
///
/// Invariants: a frame's depth is one more than the frame it answers, and frames of one depth
/// travel together, so the deepest frame before the last digest counts the one-way trips of
/// detection and transfer (`transferTrips`); the last digest, which only confirms the roots
/// match, is counted in `frames` and `confirmFrames`, not in those trips. `rowBytes` counts the
/// encoded shipped rows of responses (row encodings with their vectors and siblings); everything
/// else is detection. CPU time is the thread's, taken around each kernel call: digests, sketch
/// sizing and decoding, trie comparisons and spec answers are detection; reading the rows to ship
/// is transfer; merging is apply.
final class BenchExchange {
    /// What one side spent, in thread CPU nanoseconds.
    struct Spend {
        /// Digests, requests, sketch decoding, trie comparisons, spec answers.
        var detectNanoseconds: UInt64 = 0
        /// Reading the rows (with vectors) of the keys that differ.
        var transferNanoseconds: UInt64 = 0
        /// Merging responses.
        var applyNanoseconds: UInt64 = 0
    }

    /// A frame in flight: its body, who receives it and its depth.
    private struct InFlight {
        let body: SyncFrame.Body
        let receiver: Int
        let depth: Int
    }

    /// A, then B.
    private let stores: [KernelStore]
    private let mode: BenchMode
    /// The exchange both sides run: the sketch exchange in `fast` mode, the spec's otherwise.
    private let exchange: any ReconcileExchange
    /// Whether sketches may use the wide tier (`BenchConfig.wide`).
    private let wide: Bool
    /// The schema every frame carries.
    private let schema: SchemaFingerprint
    /// The namespaces a digest lists, in name order.
    private let names: [String]
    /// Each side's marks of the other (A's of B, then B's of A).
    private var marks = [ChangeMarks(), ChangeMarks()]
    /// Per side (A, then B).
    private(set) var spend = [Spend(), Spend()]
    /// Frames sent, both ways.
    private(set) var frames = 0
    /// Digest frames that only confirmed matching roots.
    private(set) var confirmFrames = 0
    /// One-way trips of detection and transfer, frames of one depth counted once.
    private(set) var transferTrips = 0
    /// Encoded bytes of every frame.
    private(set) var totalBytes = 0
    /// Encoded bytes of the shipped rows inside responses.
    private(set) var rowBytes = 0
    /// Frames by kind.
    private(set) var kinds: [String: Int] = [:]
    /// Why a frame was refused, if one was.
    private(set) var refusal: String?

    /// An exchange between `a` and `b`, which share a namespace set.
    init(_ a: KernelStore, _ b: KernelStore, mode: BenchMode, wide: Bool = true) {
        stores = [a, b]
        self.mode = mode
        exchange = mode == .fast ? SketchExchange() : BucketizeExchange()
        self.wide = wide
        schema = a.namespaces.schema
        names = a.namespaces.names
    }

    /// Records that the two stores hold equal roots now (their last synced exchange), as each
    /// replica records when it sees a matching digest; only the sketch exchange uses the marks.
    func recordSynced() {
        let digests = stores.map { $0.stateDigest() }
        let equal = names.filter { !digests[0].divergentNamespaces(from: digests[1]).contains($0) }
        marks[0].record(equal: equal, names: names, mine: stores[0].changeCounters(), theirs: stores[1].changeCounters())
        marks[1].record(equal: equal, names: names, mine: stores[1].changeCounters(), theirs: stores[0].changeCounters())
    }

    /// Runs rounds until a requester sees a matching digest (true) or `roundLimit` rounds pass
    /// or a frame is refused (false).
    func run(roundLimit: Int) -> Bool {
        var depth = 0
        do {
            for round in 0..<roundLimit {
                let requester = round % 2
                let responder = 1 - requester
                let advertised = try measure(responder, \.detectNanoseconds) { () throws(SyncKernelError) in
                    try exchange.encodedDigest(of: stores[responder])
                }
                let changes = exchange.countsChanges ? stores[responder].changeCounters() : []
                guard case .stateDigest(let digest, _, let theirChanges) = try transmit(.stateDigest(digest: advertised, probe: false, changes: changes), from: responder) else {
                    return false
                }
                depth += 1
                let (divergent, theirs) = try measure(requester, \.detectNanoseconds) { () throws(SyncKernelError) in
                    let theirs = try StateDigest(decoding: digest, expecting: schema, namespaces: names)
                    let mine = try exchange.digest(of: stores[requester])
                    return (mine.divergentNamespaces(from: theirs), theirs)
                }
                if divergent.isEmpty {
                    confirmFrames += 1
                    return true
                }
                transferTrips = depth
                var queue: [InFlight] = []
                for namespace in divergent {
                    let body = try measure(requester, \.detectNanoseconds) { () throws(SyncKernelError) -> SyncFrame.Body in
                        let round = ExchangeRound(namespace: namespace, theirs: theirs, theirChanges: theirChanges,
                                                  counters: stores[requester].changeCounters())
                        return try exchange.start(round, in: stores[requester], with: ExchangePeer(marks: marks[requester], readsWide: wide))
                    }
                    queue.append(InFlight(body: body, receiver: responder, depth: depth + 1))
                }
                while !queue.isEmpty {
                    let frame = queue.removeFirst()
                    let received = try transmit(frame.body, from: 1 - frame.receiver)
                    transferTrips = max(transferTrips, frame.depth)
                    for body in try handle(received, at: frame.receiver) {
                        queue.append(InFlight(body: body, receiver: 1 - frame.receiver, depth: frame.depth + 1))
                    }
                }
                depth = transferTrips
            }
        } catch {
            refusal = refusal ?? "\(error)"
        }
        return false
    }

    /// What `side` sends back for a received frame, as `Replica` answers it.
    private func handle(_ body: SyncFrame.Body, at side: Int) throws(SyncKernelError) -> [SyncFrame.Body] {
        let store = stores[side]
        switch body {
        case .reconcileRequest(let request):
            return try measure(side, \.detectNanoseconds) { () throws(SyncKernelError) in
                try store.respond(to: request).map { .reconcileResponse($0) }
            }
        case .reconcileResponse(let response):
            let outcome = try measure(side, \.applyNanoseconds) { () throws(SyncKernelError) in try store.apply(response) }
            let shipBack = exchange.shipsBack && !response.isFinal ? outcome.keysToShipBack : []
            guard !shipBack.isEmpty else { return [] }
            return try measure(side, \.transferNanoseconds) { () throws(SyncKernelError) in
                try store.respond(toKeys: shipBack, namespace: response.namespace, isFinal: true).map { .reconcileResponse($0) }
            }
        case .sketch(let request):
            let decision = try measure(side, \.detectNanoseconds) { () throws(SyncKernelError) in try store.decide(request, wide: wide) }
            switch decision {
            case .differs(let wanted, let offered):
                return try measure(side, \.transferNanoseconds) { () throws(SyncKernelError) in
                    try store.responses(request.namespace, wanted: wanted, offered: offered,
                                        mark: marks[side].myCounter(at: request.namespace)).map { .reconcileResponse($0) }
                }
            case .answer(.responses(let responses)): return responses.map { .reconcileResponse($0) }
            case .answer(.sketch(let larger)): return [.sketch(larger)]
            case .answer(.ranges(let compare)): return [.rangeCompare(compare)]
            case .answer(.whole(let whole)): return [.reconcileRequest(whole)]
            }
        case .rangeCompare(let compare):
            let (responses, next) = try measure(side, \.detectNanoseconds) { () throws(SyncKernelError) in try store.answer(compare) }
            return responses.map { .reconcileResponse($0) } + next.map { .rangeCompare($0) }
        case .stateDigest, .heartbeat, .push, .pushAck:
            return []
        }
    }

    /// Runs `body` and adds its thread CPU time to `side`'s `account`.
    private func measure<T>(_ side: Int, _ account: WritableKeyPath<Spend, UInt64>,
                            _ body: () throws(SyncKernelError) -> T) throws(SyncKernelError) -> T {
        try ThreadCPUClock.measure(&spend[side][keyPath: account], body)
    }

    /// Encodes `body` as side `sender` writes it, counts it, and returns what the receiver
    /// decodes from it (knowing, as a replica does, which sibling sent it).
    private func transmit(_ body: SyncFrame.Body, from sender: Int) throws(SyncKernelError) -> SyncFrame.Body {
        let device = stores[sender].device
        let bytes = SyncFrame(account: BenchDevices.account, schema: schema, body: body,
                              compactVectors: mode == .fast, compactHeader: mode == .fast, sender: device).encoded()
        frames += 1
        kinds[body.kind, default: 0] += 1
        totalBytes += bytes.count
        if case .reconcileResponse(let response) = body, !response.rows.isEmpty {
            let withoutRows = ReconcileResponse(namespace: response.namespace, rows: [], tombstones: response.tombstones,
                                                listings: response.listings, want: response.want)
            rowBytes += bytes.count - SyncFrame(account: BenchDevices.account, schema: schema,
                                                body: .reconcileResponse(withoutRows),
                                                compactVectors: mode == .fast, compactHeader: mode == .fast, sender: device).encoded().count
        }
        do {
            return try SyncFrame(decoding: bytes, account: BenchDevices.account, sender: device).body
        } catch {
            refusal = "a \(body.kind) frame of \(bytes.count) bytes was refused: \(error)"
            throw error
        }
    }
}
