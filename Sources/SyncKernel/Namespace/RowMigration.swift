/// How to read rows a store holds in an earlier row format of the namespace.
///
/// The store records each namespace's row format id; when it differs from the current one at
/// open, every stored row is read through the migration for that format and rewritten in the
/// current one, in one transaction. Without a matching migration the store refuses to open with
/// `rowFormatChanged`, naming the format to migrate from, rather than misreading a single row.
///
/// Invariant required: a migrated row keeps its key (keys name rows across devices).
public struct RowMigration<Row: Sendable>: Sendable {
    /// The row format id this migration reads.
    public let fromFormat: String
    let decode: @Sendable (CBORValue) throws(SyncKernelError) -> Row

    /// Reads rows written under `schema`, an earlier declaration of the namespace kept in source
    /// (its `blank` supplies any property the earlier format did not have).
    public init(from schema: RowSchema<Row>) {
        fromFormat = schema.rowFormatID
        decode = { value throws(SyncKernelError) in try schema.decodeRow(value) }
    }

    /// Reads rows of format `formatID` (as the store's `rowFormatChanged` error names it) with a
    /// hand-written decoder.
    public init(fromFormat formatID: String, decode: @escaping @Sendable (CBORValue) throws(SyncKernelError) -> Row) {
        fromFormat = formatID
        self.decode = decode
    }
}
