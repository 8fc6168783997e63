/// Whether a namespace's rows take part in causal bookkeeping (RowClock and RowVersion).
///
/// Invariant: exactly the namespaces whose rule is `.causal` are `.tracked`; `NamespaceSet`
/// refuses any other combination, so a causal namespace can never silently stop bumping.
public enum CausalMembership<Row: Sendable>: Sendable {
    /// Tracked: `changeStamp` is the row's updatedAt in whole seconds, which RowClock compares
    /// for inequality only to notice local edits.
    case tracked(changeStamp: @Sendable (Row) -> Int64)
    /// Not tracked: the rule needs no history.
    case untracked
}
