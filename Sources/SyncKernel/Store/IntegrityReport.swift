/// What `KernelStore.checkIntegrity()` found.
///
/// Invariant: the store is healthy (`isHealthy`) exactly when SQLite's own check passed, every
/// namespace's structure equals a rescan of its stored leaves and every stored row reads back;
/// quarantined rows are listed but are not damage (they were already set aside).
public struct IntegrityReport: Sendable, Hashable {
    /// The problems SQLite's `PRAGMA integrity_check` listed (pages, tables, indexes; never row
    /// values); empty when it answered `ok`.
    public let sqliteProblems: [String]
    /// The namespaces whose persisted or in-memory structure differs from a rescan of their
    /// stored leaves (or whose persisted structure no longer reads), in name order.
    public let differingStructures: [String]
    /// The stored rows and kept versions that fail the store's row checks, in namespace and key order.
    public let damagedRows: [DamagedRow]
    /// Every quarantined row, in quarantine order.
    public let quarantined: [QuarantinedRow]
    /// How many stored rows and kept versions were checked.
    public let rowsChecked: Int

    /// Whether no damage was found.
    public var isHealthy: Bool { sqliteProblems.isEmpty && differingStructures.isEmpty && damagedRows.isEmpty }
}
