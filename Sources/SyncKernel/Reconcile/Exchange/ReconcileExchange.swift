/// One way two replicas find what differs in a namespace: the digest layout they compare, the
/// frame that starts a round, and the answer to each step of it a sibling sends.
///
/// A replica negotiates one exchange per sibling from what the sibling's own frames show
/// (`ReconcileMode.exchange(shownBy:)`), and runs everything that differs between exchanges
/// through it. The responses that carry rows, the pushes, the storm guard and the timers around
/// a round are the same for every exchange and stay in `Replica`. The spec's bucketize exchange
/// (`BucketizeExchange`) is spoken by every build; the sketch exchange (`SketchExchange`) only
/// with a sibling that announced it.
///
/// Implementation requirements:
/// - `digest(of:)` returns a digest of `layout`, and the same bytes for the same store state on
///   every device holding that state under that schema.
/// - `start` and `answer` read the store and never write it: the replica applies the responses
///   they lead to, and a throw leaves the store as it was.
/// - `step(of:)` is nil exactly for the bodies that are not steps of this exchange, and `answer`
///   is called only for a body `step(of:)` recognised.
/// - The exchanges of one `ReconcileMode` have distinct layouts and recognise disjoint bodies.
package protocol ReconcileExchange: Sendable {
    /// The digest layout this exchange compares.
    var layout: StateDigest.Layout { get }
    /// The capability a sibling announces when it speaks this exchange; nil for the exchange
    /// every build speaks.
    var capability: String? { get }
    /// Whether a non-final response's uncovered keys go back to the sibling at once (the sibling
    /// of this exchange merges a final response it did not ask for).
    var shipsBack: Bool { get }
    /// Whether frames to the sibling carry compact version vectors.
    var compactVectors: Bool { get }
    /// This store's digest in `layout`.
    func digest(of store: KernelStore) throws(SyncKernelError) -> StateDigest
    /// The wire form of `digest(of:)`.
    func encodedDigest(of store: KernelStore) throws(SyncKernelError) -> [UInt8]
    /// The first frame of a round for a namespace the sibling's digest showed divergent.
    func start(_ round: ExchangeRound, in store: KernelStore, with peer: ExchangePeer) throws(SyncKernelError) -> SyncFrame.Body
    /// The step `body` is of this exchange, or nil when it is not one.
    func step(of body: SyncFrame.Body) -> ExchangeStep?
    /// The frames that answer `body` (rows, or the exchange's next step).
    func answer(_ body: SyncFrame.Body, in store: KernelStore, with peer: ExchangePeer) throws(SyncKernelError) -> [SyncFrame.Body]
}

extension ReconcileExchange {
    /// Encodes `digest(of:)`.
    package func encodedDigest(of store: KernelStore) throws(SyncKernelError) -> [UInt8] {
        try digest(of: store).encoded()
    }

    /// Whether digests of this exchange carry change counters (the set-hash layout does), so the
    /// replica keeps change marks of the sibling.
    package var countsChanges: Bool { layout == .setHash }
}
