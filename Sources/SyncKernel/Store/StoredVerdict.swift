/// The verdict on one stored row (`StoredRowCheck`): usable, with what reading it gave, or
/// damaged, with why.
///
/// Invariant: `damaged` always names the first check the row failed.
enum StoredVerdict<Value> {
    /// The row reads back; `Value` is what reading it gave.
    case usable(Value)
    /// The row is damaged.
    case damaged(QuarantineReason)
}
