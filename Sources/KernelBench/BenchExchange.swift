import SyncKernel

/// Drives two stores to equal roots the way two replicas would, frame by frame, and counts what
/// the wire would carry and what each side spent.
///
/// The exchange alternates: in round r the requester is A for even r and B for odd r. The
/// responder sends its `state_digest`; the requester compares it with its own and stops when they
/// match; otherwise it sends a `reconcile_req` per divergent namespace, applies the
/// `reconcile_resp`, and follows any leaf listings with a by-key request. Every frame is encoded
/// with the `sync_delta` codec and decoded under the wire limits on the other side, so bytes
/// and refusals are those of the wire.
///
/// Invariants: every frame waits for the one before it, so `frames` is also the number of
/// one-way trips in sequence; `rowBytes` counts the encoded shipped rows of responses (row
/// encodings with their vectors and siblings) and everything else is detection; CPU time is
/// the thread's, taken around each kernel call: digests, request building, answering and
/// listing diffs are detection, merging a response is apply.
final class BenchExchange {
    /// What one side spent, in thread CPU nanoseconds.
    struct Spend {
        /// Producing and comparing digests, building requests, answering requests, diffing listings.
        var detectNanoseconds: UInt64 = 0
        /// Merging responses.
        var applyNanoseconds: UInt64 = 0
    }

    /// A, then B.
    private let stores: [KernelStore]
    /// The schema every frame carries.
    private let schema: SchemaFingerprint
    /// The namespaces a digest lists, in name order.
    private let names: [String]
    /// Per side (A, then B).
    private(set) var spend = [Spend(), Spend()]
    /// Frames sent, both ways.
    private(set) var frames = 0
    /// Encoded bytes of every frame.
    private(set) var totalBytes = 0
    /// Encoded bytes of the shipped rows inside responses.
    private(set) var rowBytes = 0
    /// Why a frame was refused, if one was.
    private(set) var refusal: String?

    /// An exchange between `a` and `b`, which share a namespace set.
    init(_ a: KernelStore, _ b: KernelStore) {
        stores = [a, b]
        schema = a.namespaces.schema
        names = a.namespaces.names
    }

    /// Runs rounds until a requester sees a matching digest (true) or `roundLimit` rounds pass
    /// or a frame is refused (false).
    func run(roundLimit: Int) -> Bool {
        do {
            for round in 0..<roundLimit {
                let requester = round % 2
                let responder = 1 - requester
                let advertised = ThreadCPUClock.measure(&spend[responder].detectNanoseconds) {
                    stores[responder].encodedStateDigest()
                }
                guard case .stateDigest(let digest, _) = try transmit(.stateDigest(digest: advertised, probe: false)) else {
                    return false
                }
                let divergent = try ThreadCPUClock.measure(&spend[requester].detectNanoseconds) { () throws(SyncKernelError) in
                    let theirs = try StateDigest(decoding: digest, expecting: schema, namespaces: names)
                    return stores[requester].stateDigest().divergentNamespaces(from: theirs)
                }
                if divergent.isEmpty { return true }
                for namespace in divergent { try pull(namespace, requester: requester, responder: responder) }
            }
        } catch {
            refusal = refusal ?? "\(error)"
        }
        return false
    }

    /// One pull of `namespace`: the range request, then by-key requests while listings come back.
    private func pull(_ namespace: String, requester: Int, responder: Int) throws(SyncKernelError) {
        var request = try ThreadCPUClock.measure(&spend[requester].detectNanoseconds) { () throws(SyncKernelError) in
            try stores[requester].reconcileRequest(for: namespace)
        }
        while true {
            guard case .reconcileRequest(let received) = try transmit(.reconcileRequest(request)) else { return }
            let answer = try ThreadCPUClock.measure(&spend[responder].detectNanoseconds) { () throws(SyncKernelError) in
                try stores[responder].respond(to: received)
            }
            guard let answer, case .reconcileResponse(let response) = try transmit(.reconcileResponse(answer)) else { return }
            try ThreadCPUClock.measure(&spend[requester].applyNanoseconds) { () throws(SyncKernelError) in
                _ = try stores[requester].apply(response)
            }
            let wanted = try ThreadCPUClock.measure(&spend[requester].detectNanoseconds) { () throws(SyncKernelError) in
                try stores[requester].wantedKeys(response.listings, namespace: namespace)
            }
            guard !wanted.isEmpty else { return }
            request = ReconcileRequest(namespace: namespace, buckets: [], keys: wanted)
        }
    }

    /// Encodes `body` as a frame, counts it, and returns what the receiver decodes from it.
    private func transmit(_ body: SyncFrame.Body) throws(SyncKernelError) -> SyncFrame.Body {
        let bytes = SyncFrame(account: BenchDevices.account, schema: schema, body: body).encoded()
        frames += 1
        totalBytes += bytes.count
        if case .reconcileResponse(let response) = body, !response.rows.isEmpty {
            let withoutRows = ReconcileResponse(namespace: response.namespace, rows: [], tombstones: response.tombstones,
                                                listings: response.listings)
            rowBytes += bytes.count - SyncFrame(account: BenchDevices.account, schema: schema,
                                                body: .reconcileResponse(withoutRows)).encoded().count
        }
        do {
            return try SyncFrame(decoding: bytes).body
        } catch {
            refusal = "a \(body.kind) frame of \(bytes.count) bytes was refused: \(error)"
            throw error
        }
    }
}
