/// What a hashed field puts in the leaf when that is not the field itself: a value derived from
/// the row, such as a body's digest that an offloaded copy holds as a stamped hash.
///
/// Invariant required: two rows that mean the same content derive the same value, whatever
/// their excluded fields say (that is the point of deriving it).
public struct LeafContribution<Row: Sendable>: Sendable {
    /// The contribution's name, part of the fingerprint.
    package let name: String
    /// The shape of the value written.
    package let shape: CodecShape
    /// Writes the contribution of a row as one leaf item.
    package let write: @Sendable (Row, inout CanonicalWriter) -> Void

    /// The leaf holds `value(row)`, written with `codec`; `name` enters the schema fingerprint.
    public static func derived<Value: Sendable>(_ name: String, _ codec: FieldCodec<Value>,
                                                _ value: @escaping @Sendable (Row) -> Value) -> LeafContribution {
        LeafContribution(name: name, shape: codec.shape) { row, writer in codec.writeLeafItem(value(row), &writer) }
    }
}
