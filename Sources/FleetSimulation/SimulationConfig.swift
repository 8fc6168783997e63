import SyncKernel
import SyncKernelSimulator

/// The parameters of one simulated fleet run.
///
/// Invariant: one configuration (seed included) always produces the same run and report,
/// apart from `wallMillis`.
public struct SimulationConfig: Sendable, Hashable {
    /// Number of devices (2 or more).
    public var devices = 3
    /// Notebook rows every device starts with.
    public var rows = 20_000
    /// Differences made after the start: edits, inserts, deletes and concurrent edits.
    public var differences = 100
    /// The virtual milliseconds the differences are spread over, evenly from the start: writes
    /// keep arriving while the fleet reconciles for this long.
    public var writeSpanMillis: Int64 = 1_000
    /// Relay conditions (latency, loss, duplication, reordering).
    public var conditions = RelayConditions()
    /// The reconcile frames every device speaks (`.spec` is the reconciling-by-digest spec only).
    public var mode: ReconcileMode = .sketch
    /// How many of the devices (the last ones) speak only the spec's frames whatever `mode` is:
    /// a mixed fleet, as when some devices still run an older build.
    public var specOnlyDevices = 0
    /// The namespaces to run, by name; empty means the classic notebook-only run (with its
    /// concurrent edit pairs). `["all"]` selects every namespace; rows and differences are then
    /// spread evenly over them.
    public var namespaces: [String] = []
    /// Seed of every random choice.
    public var seed: UInt64 = 1
    /// How far the last device's wall clock runs ahead, in seconds.
    public var clockSkewSeconds: Int64 = 7 * 60
    /// Longest virtual time the run may take before it is declared not converged.
    public var limitMillis: Int64 = 10 * 60 * 1000
    /// Folder for the devices' SQLite files (a fresh temporary folder when nil).
    public var directory: String?
    /// Whether device 0 acts as an app that resolves conflicts: once the fleet has converged
    /// after the differences, it resolves every key left in conflict (keeping the version it
    /// shows, `NamespaceTransaction.resolve`), and the fleet runs until it converges again.
    public var resolvesConflicts = false

    /// The defaults of `make run`: 3 devices, 20,000 rows, 100 differences, 30 ms latency.
    public init() {}
}
