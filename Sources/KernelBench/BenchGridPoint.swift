/// One cell of the grid: a run's report, or why it was not run.
///
/// Invariant: exactly one of `report` and `skipped` is set.
public struct BenchGridPoint: Sendable {
    /// Rows both replicas started with.
    public let rows: Int
    /// Differences made.
    public let differences: Int
    /// The response mode.
    public let mode: BenchMode
    /// What the run measured, when it ran.
    public let report: BenchReport?
    /// Why it did not run (an estimate above the bound), when it did not.
    public let skipped: String?
}
