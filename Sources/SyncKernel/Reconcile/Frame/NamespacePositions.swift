/// The namespace names a schema fingerprint covers, in order: a compact `push` or `push_ack`
/// names its namespace by its position among them (one byte for the first 24) instead of by
/// name.
///
/// Invariants: a position is written only into a frame of `schema` and read back only from a
/// frame of `schema`, so two builds that agree on the fingerprint agree on every name's
/// position; a position in a frame of another schema, or past the last name, is refused
/// (`malformedFrame`), never read as some other namespace.
package struct NamespacePositions: Sendable, Hashable {
    /// The schema fingerprint the names belong to.
    package let schema: SchemaFingerprint
    /// The namespace names, in the order the fingerprint covers them.
    package let names: [String]

    /// The positions of `names` under `schema`.
    package init(schema: SchemaFingerprint, names: [String]) {
        self.schema = schema
        self.names = names
    }

    /// The position of `namespace` in a frame of `schema`, nil when either does not match.
    package func position(of namespace: String, in schema: SchemaFingerprint) -> Int? {
        schema == self.schema ? names.firstIndex(of: namespace) : nil
    }

    /// The namespace at `position` in a frame of `schema`; `malformedFrame` for another schema or
    /// a position past the last name.
    package func namespace(at position: UInt64, in schema: SchemaFingerprint) throws(SyncKernelError) -> String {
        guard schema == self.schema, position < UInt64(names.count) else {
            throw SyncKernelError(.malformedFrame, "a namespace position outside the schema")
        }
        return names[Int(position)]
    }
}
