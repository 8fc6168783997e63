/// One point of `synckernel bench-e2e`: N preloaded rows of B bytes, D differences on one side or
/// both, between devices that stayed up or after a restart of one of them.
///
/// Invariant: `differences <= rows / 10` for every point the command runs (checked when parsed).
struct E2EPoint: Hashable {
    /// Which device, if any, is away while the differences are written and restarts after.
    enum Restart: String, CaseIterable {
        /// Both devices stay up: the differences are written while both run.
        case none
        /// Device a stops, writes its share offline (a process with no relay), and restarts.
        case a
        /// Device b stops, writes its share offline, and restarts.
        case b
    }

    /// Preloaded rows.
    let rows: Int
    /// Encoded bytes of every row.
    let rowBytes: Int
    /// Differences written.
    let differences: Int
    /// Which devices write them.
    let sides: E2EPlan.Sides
    /// Which device restarts.
    let restart: Restart

    /// The point as the words of its options.
    var label: String {
        "--rows \(rows) --diff \(differences) --row-bytes \(rowBytes) --sides \(sides.rawValue) --restart \(restart.rawValue)"
    }
}
