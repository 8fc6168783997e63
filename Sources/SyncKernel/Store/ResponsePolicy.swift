/// How a store answers a mismatching range of a peer's `reconcile_req` (a `KernelStore` setting).
///
/// Invariant: `.shipRows` is the spec's behaviour (every row of the range); `.listAbove(n)` sends
/// a `RangeListing` for ranges holding more than `n` leaves, so the pair pays one extra round
/// trip to ship only the differing rows.
public enum ResponsePolicy: Sendable, Hashable {
    /// Ship every row of every mismatching range.
    case shipRows
    /// List the leaves of mismatching ranges with more than this many leaves; ship rows below it.
    case listAbove(Int)

    /// The default: list ranges of more than 8 leaves.
    public static let standard = ResponsePolicy.listAbove(8)
}
