/// How the in-process relay mistreats frames: latency, loss, duplication and reordering.
///
/// Invariant: all randomness comes from the relay's seeded generator, so one seed replays one
/// delivery schedule exactly.
public struct RelayConditions: Sendable, Hashable {
    /// One-way latency of every frame, in milliseconds.
    public var latencyMillis: Int64
    /// Probability that a frame is dropped.
    public var lossRate: Double
    /// Probability that a frame is delivered twice.
    public var duplicationRate: Double
    /// Largest extra random delay in milliseconds; any value above zero lets frames overtake each other.
    public var reorderJitterMillis: Int64

    /// Creates conditions; the defaults are a perfect 30 ms link.
    public init(latencyMillis: Int64 = 30, lossRate: Double = 0, duplicationRate: Double = 0,
                reorderJitterMillis: Int64 = 0) {
        self.latencyMillis = latencyMillis
        self.lossRate = lossRate
        self.duplicationRate = duplicationRate
        self.reorderJitterMillis = reorderJitterMillis
    }
}
