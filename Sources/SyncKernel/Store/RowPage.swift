/// One page of a namespace's rows in key order, and where the next page starts.
///
/// Invariants: `rows` are in strictly increasing key order; `next` is nil exactly when the
/// page reached the end of what was asked for (the namespace, or the prefix), and otherwise is
/// the last key the page looked at, which the next call passes as its `after` (a damaged row the
/// page skipped still moves the cursor, so paging never stalls and never repeats a row).
public struct RowPage<Row: Sendable>: Sendable {
    /// The rows, each with its key, in key order.
    public let rows: [(key: [UInt8], row: Row)]
    /// The key to pass as `after` for the next page; nil at the end.
    public let next: [UInt8]?

    /// A page of `rows` continuing after `next` (nil: the last page).
    package init(rows: [(key: [UInt8], row: Row)], next: [UInt8]?) {
        self.rows = rows
        self.next = next
    }
}
