/// The parameters of one benchmark run.
///
/// Invariant: one configuration (seed included) always builds the same rows, the same
/// differences and the same exchange; only the timings vary from run to run.
public struct BenchConfig: Sendable, Hashable {
    /// Rows both replicas start with.
    public var rows = 10_000
    /// Differences made after the load: inserts on either side and edits of shared rows.
    public var differences = 100
    /// How the replicas answer requests.
    public var mode = BenchMode.fast
    /// Seed of every random choice.
    public var seed: UInt64 = 1
    /// The encoded size each row aims at.
    public var rowBytes = 500
    /// Whether every difference is made on A (inserts and edits), B only taking them in; false
    /// splits them across both sides.
    public var oneSided = false
    /// Whether the two replicas read sketches past the standard capacity (`SyncFrame.wideCapability`),
    /// as two of this build do; false runs the exchange a peer of the earlier build gets (at most
    /// 4,096 symbols, then the trie comparison), for a before-and-after in one run.
    public var wide = true
    /// The most request rounds (each side requesting once is two) before the run gives up.
    public var roundLimit = 16

    /// A run of `rows` rows and `differences` differences under `mode`; the rest defaulted.
    public init(rows: Int = 10_000, differences: Int = 100, mode: BenchMode = .fast, seed: UInt64 = 1, rowBytes: Int = 500) {
        self.rows = rows
        self.differences = differences
        self.mode = mode
        self.seed = seed
        self.rowBytes = rowBytes
    }
}
