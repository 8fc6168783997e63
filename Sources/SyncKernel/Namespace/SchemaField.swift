/// One declared field as the kernel and the conformance kit see it, whatever the row's shape.
///
/// Invariant: `value` and `replacing` answer nil exactly for rows of another variant; for all
/// other rows `replacing(row, item)` changes this field only.
package struct SchemaField<Row: Sendable>: Sendable {
    /// The field's name (`Variant.field` inside a variant).
    package let name: String
    /// What the field is to the leaf.
    package let role: FieldRole
    /// The codec's wire shape.
    package let shape: CodecShape
    /// The name of the field's merge, when it declares one.
    package let mergeName: String?
    /// What the field's merge means for a local edit.
    package let mergeKind: MergeKind?
    /// The name of a derived leaf contribution, when the leaf holds one.
    package let leafName: String?
    /// The key path the field reaches (nil for a group).
    package let path: (any AnyKeyPath & Sendable)?
    /// The variant the field belongs to, for an enum row.
    package let variant: String?
    /// The field's row item bytes.
    package let value: @Sendable (Row) -> [UInt8]?
    /// The field's item in a `.sequence` leaf (its leaf contribution), for hashed fields.
    package let leafValue: @Sendable (Row) -> [UInt8]?
    /// The row with the field read from `item`.
    package let replacing: @Sendable (Row, CBORValue) throws(SyncKernelError) -> Row?
    /// The row with sub-second noise in every date the field holds.
    package let perturb: @Sendable (Row) -> Row?
    /// `local` with this field set to the field merge of both sides' values (nil without a merge
    /// or across variants).
    package let merging: @Sendable (_ local: Row, _ incoming: Row) -> Row?
    /// Whether both rows hold values of this field that its merge calls a disagreement (false
    /// without one, or across variants).
    package let disagrees: @Sendable (_ local: Row, _ incoming: Row) -> Bool
    /// The blank row of the field's variant (or of the row).
    package let blank: Row

    /// The category when the field is excluded.
    package var exclusion: ExcludedField.Category? {
        if case .excluded(let category, _) = role { return category }
        return nil
    }

    /// Writes what the fingerprint commits to: role, category, shape, merge and leaf contribution
    /// (not the name: renaming a property changes no byte anyone hashes or ships).
    func describe(into writer: inout CanonicalWriter) {
        writer.writeArrayHeader(count: 5)
        switch role {
        case .hashed: writer.write("hashed")
        case .excluded: writer.write("excluded")
        case .member: writer.write("member")
        }
        if let exclusion { writer.write(exclusion.rawValue) } else { writer.writeNull() }
        shape.encode(into: &writer)
        writer.writeNullable(mergeName)
        writer.writeNullable(leafName)
    }
}
