/// How the in-process relay mistreats frames: latency, bandwidth, loss, duplication and reordering.
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
    /// Bytes one link carries per millisecond, 0 for no limit: a frame leaves once the frames
    /// published before it on the same link (sender to recipient) have gone, and takes its size
    /// over this rate to go, so a large frame holds back the ones after it.
    public var bytesPerMillisecond: Int64

    /// Creates conditions; the defaults are a perfect 30 ms link without a bandwidth limit.
    public init(latencyMillis: Int64 = 30, lossRate: Double = 0, duplicationRate: Double = 0,
                reorderJitterMillis: Int64 = 0, bytesPerMillisecond: Int64 = 0) {
        self.bytesPerMillisecond = max(bytesPerMillisecond, 0)
        self.latencyMillis = latencyMillis
        self.lossRate = lossRate
        self.duplicationRate = duplicationRate
        self.reorderJitterMillis = reorderJitterMillis
    }
}
