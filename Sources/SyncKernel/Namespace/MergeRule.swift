/// How a namespace merges an incoming row into its local copy; the kernel dispatches on it.
///
/// Invariant: every rule is commutative and idempotent over the rows it merges, which is what
/// lets two devices pull from each other at the same time and still converge. Choose the weakest
/// rule the data allows (see docs/namespace-authoring.md).
public enum MergeRule<Row: Sendable>: Sendable {
    /// Version vectors and `resolveMerge`: causality first, add-wins on presence, then the
    /// lexicographically greater leaf encoding. Requires `CausalMembership.tracked`.
    case causal
    /// A join on a semilattice (for example a bit that only goes from false to true). The join
    /// must be commutative, associative and idempotent.
    case monotone(join: @Sendable (_ local: Row, _ incoming: Row) -> Row)
    /// Append-only: an incoming row is inserted when its key is absent and otherwise ignored.
    case insertIfAbsent
    /// A fold over an append-only set of immutable operations carried in the row: `join` unions
    /// the operation sets and re-folds. Same laws as `monotone`.
    case fold(join: @Sendable (_ local: Row, _ incoming: Row) -> Row)
    /// One author orders all versions by its own stamp; the larger stamp wins, ties go to the
    /// greater leaf encoding.
    case singleWriterLWW(stamp: @Sendable (Row) -> Int64)

    /// A short stable name, used in reports and the schema fingerprint.
    public var name: String {
        switch self {
        case .causal: return "causal"
        case .monotone: return "monotone"
        case .insertIfAbsent: return "insertIfAbsent"
        case .fold: return "fold"
        case .singleWriterLWW: return "singleWriterLWW"
        }
    }
}
