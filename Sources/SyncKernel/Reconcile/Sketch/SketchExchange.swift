/// The sketch exchange: set-hash digests with change counters, then a rateless sketch sized by
/// the change marks, answered with the rows that differ, a larger sketch, a prefix-trie range
/// comparison, or a request for the whole namespace.
///
/// Invariant: used only with a sibling that announced `SyncFrame.sketchCapability` or sent a
/// set-hash digest, and only by a `.sketch` replica. The digest is the store's cached set-hash
/// digest, so producing it never scans rows. A whole-namespace request it sends on is the
/// bucketize exchange's frame, which every build answers.
package struct SketchExchange: ReconcileExchange {
    /// An exchange value (it holds nothing).
    package init() {}

    package var layout: StateDigest.Layout { .setHash }
    package var capability: String? { SyncFrame.sketchCapability }
    package var shipsBack: Bool { true }
    package var compactVectors: Bool { true }

    package func digest(of store: KernelStore) throws(SyncKernelError) -> StateDigest {
        store.stateDigest()
    }

    package func encodedDigest(of store: KernelStore) throws(SyncKernelError) -> [UInt8] {
        store.encodedStateDigest()
    }

    package func start(_ round: ExchangeRound, in store: KernelStore, with peer: ExchangePeer) throws(SyncKernelError) -> SyncFrame.Body {
        let names = store.namespaces.names
        let expected = peer.marks.expectedItems(round.namespace, names: names, mine: round.counters, theirs: round.theirChanges)
        return try store.sketchStart(for: round.namespace, expectedItems: expected, wide: peer.readsWide, peerRoot: round.theirRoot)
    }

    package func step(of body: SyncFrame.Body) -> ExchangeStep? {
        switch body {
        case .sketch(let request): ExchangeStep(namespace: request.namespace, answersRound: true)
        case .rangeCompare(let compare): ExchangeStep(namespace: compare.namespace, answersRound: true)
        default: nil
        }
    }

    package func answer(_ body: SyncFrame.Body, in store: KernelStore, with peer: ExchangePeer) throws(SyncKernelError) -> [SyncFrame.Body] {
        switch body {
        case .sketch(let request):
            switch try store.answer(request, mark: peer.marks.myCounter(at: request.namespace), wide: peer.readsWide) {
            case .responses(let responses): return responses.map { .reconcileResponse($0) }
            case .sketch(let larger): return [.sketch(larger)]
            case .ranges(let compare): return [.rangeCompare(compare)]
            case .whole(let whole): return [.reconcileRequest(whole)]
            }
        case .rangeCompare(let compare):
            let (responses, next) = try store.answer(compare)
            return responses.map { .reconcileResponse($0) } + next.map { .rangeCompare($0) }
        default:
            return []
        }
    }
}
