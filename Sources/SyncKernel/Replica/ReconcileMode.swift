/// Which reconcile frames a replica speaks.
///
/// Invariant: a `.sketch` replica speaks both exchanges and uses the sketch exchange only with a
/// peer that showed it (negotiated from the peer's own frames, never assumed); a `.spec`
/// replica behaves as a build that knows only the spec's frames: Merkle digests and whole
/// mismatching buckets, no capability announced, sketch frames refused as unknown kinds.
public enum ReconcileMode: Sendable, Hashable {
    /// Set-hash digests and the sketch exchange with peers that announce them; the spec with others.
    case sketch
    /// Only the spec's frames.
    case spec

    /// The exchanges this mode speaks, preferred first; the last is the spec's, which every
    /// build speaks and a replica uses with a sibling until the sibling shows another.
    package var exchanges: [any ReconcileExchange] {
        switch self {
        case .sketch: Self.sketchExchanges
        case .spec: Self.specExchanges
        }
    }

    /// The exchange every build speaks: where a replica starts with each sibling.
    package var fallbackExchange: any ReconcileExchange { Self.bucketize }

    // Built once: a replica consults its mode's exchanges on every step a sibling sends.
    private static let bucketize: any ReconcileExchange = BucketizeExchange()
    private static let sketchExchanges: [any ReconcileExchange] = [SketchExchange(), bucketize]
    private static let specExchanges: [any ReconcileExchange] = [bucketize]

    /// The most preferred exchange of this mode that a sibling announcing `capabilities` speaks,
    /// or nil when they name none beyond the spec's.
    package func exchange(announcedIn capabilities: [String]) -> (any ReconcileExchange)? {
        exchanges.first { exchange in exchange.capability.map(capabilities.contains) ?? false }
    }

    /// The exchange of this mode that compares digests of `layout`, or nil when it speaks none.
    package func exchange(comparing layout: StateDigest.Layout) -> (any ReconcileExchange)? {
        exchanges.first { $0.layout == layout }
    }

    /// Where `exchange` stands among this mode's preferences: lower is preferred.
    package func rank(of exchange: any ReconcileExchange) -> Int {
        exchanges.firstIndex { $0.layout == exchange.layout } ?? exchanges.count
    }
}
