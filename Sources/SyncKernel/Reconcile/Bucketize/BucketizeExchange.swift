/// The spec's exchange: Merkle digests, then a `reconcile_req` of the requester's bucket hashes,
/// answered with the rows of every bucket that mismatches (`bucketize`).
///
/// Invariant: spoken by every build, so it needs no capability and is what a replica uses with a
/// sibling until that sibling shows another. A Merkle root needs every item of a namespace in key
/// order: the store computes it by a scan after the namespace changed and caches it until its
/// items move again.
package struct BucketizeExchange: ReconcileExchange {
    /// An exchange value (it holds nothing).
    package init() {}

    package var layout: StateDigest.Layout { .merkle }
    package var capability: String? { nil }
    package var shipsBack: Bool { false }
    package var compactVectors: Bool { false }

    package func digest(of store: KernelStore) throws(SyncKernelError) -> StateDigest {
        try store.merkleDigest()
    }

    package func start(_ round: ExchangeRound, in store: KernelStore, with peer: ExchangePeer) throws(SyncKernelError) -> SyncFrame.Body {
        .reconcileRequest(try store.reconcileRequest(for: round.namespace))
    }

    package func step(of body: SyncFrame.Body) -> ExchangeStep? {
        guard case .reconcileRequest(let request) = body else { return nil }
        return ExchangeStep(namespace: request.namespace, answersRound: false)
    }

    package func answer(_ body: SyncFrame.Body, in store: KernelStore, with peer: ExchangePeer) throws(SyncKernelError) -> [SyncFrame.Body] {
        guard case .reconcileRequest(let request) = body else { return [] }
        return try store.respond(to: request).map { .reconcileResponse($0) }
    }
}
