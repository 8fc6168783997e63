/// The wire shape of a `FieldCodec`: what the schema fingerprint commits to and what the
/// conformance kit generates values for.
///
/// Invariant: a codec's shape changes whenever the bytes it writes for some value change (a
/// custom codec says so through its name), so a fingerprint over shapes moves with the format.
package indirect enum CodecShape: Sendable, Hashable {
    /// A byte string, of a fixed length when `count` is set.
    case bytes(count: Int?)
    /// A UTF-8 text string.
    case text
    /// A boolean.
    case bool
    /// A date: tag 1 over whole seconds.
    case date
    /// A date as whole milliseconds since 1970 (a plain integer).
    case dateMilliseconds
    /// A signed 64-bit integer.
    case int64
    /// An unsigned 64-bit integer.
    case uint64
    /// An unsigned integer limited to the raw values of an enumeration.
    case enumeration(rawValues: [UInt64])
    /// Null or the wrapped value; `emptyIsAbsent` makes an empty value hash as absent.
    case optional(CodecShape, emptyIsAbsent: Bool)
    /// An array of elements of one shape.
    case array(CodecShape)
    /// A positional array of members (a record value, or a group of row fields).
    case record([CodecShape])
    /// A `Register`: its edit counter and its value.
    case register(CodecShape)
    /// A hand-written codec, identified by its declared name.
    case custom(name: String)

    /// The CBOR items every value of this shape writes (containers, tags and scalars counted)
    /// and their deepest nesting, or nil when a value decides them (an array, a custom codec).
    /// A missing optional writes fewer; the count is the most.
    package var boundedTree: (items: Int, depth: Int)? {
        switch self {
        case .bytes, .text, .bool, .dateMilliseconds, .int64, .uint64, .enumeration:
            return (1, 0)
        case .date:
            return (2, 1)
        case .optional(let wrapped, _):
            return wrapped.boundedTree
        case .register(let value):
            return value.boundedTree.map { (2 + $0.items, 1 + $0.depth) }
        case .record(let members):
            var items = 1
            var depth = 0
            for member in members {
                guard let tree = member.boundedTree else { return nil }
                items += tree.items
                depth = max(depth, tree.depth)
            }
            return (items, 1 + depth)
        case .array, .custom:
            return nil
        }
    }

    /// Writes the shape canonically, for fingerprints.
    package func encode(into writer: inout CanonicalWriter) {
        switch self {
        case .bytes(let count):
            writer.writeArrayHeader(count: 2)
            writer.write("bytes")
            writer.write(Int64(count ?? -1))
        case .text: writer.write("text")
        case .bool: writer.write("bool")
        case .date: writer.write("date")
        case .dateMilliseconds: writer.write("dateMilliseconds")
        case .int64: writer.write("int64")
        case .uint64: writer.write("uint64")
        case .enumeration(let rawValues):
            writer.writeArrayHeader(count: 2)
            writer.write("enumeration")
            writer.writeArray(rawValues) { $0.write($1) }
        case .optional(let wrapped, let emptyIsAbsent):
            writer.writeArrayHeader(count: 3)
            writer.write("optional")
            wrapped.encode(into: &writer)
            writer.write(emptyIsAbsent)
        case .array(let element):
            writer.writeArrayHeader(count: 2)
            writer.write("array")
            element.encode(into: &writer)
        case .record(let members):
            writer.writeArrayHeader(count: 2)
            writer.write("record")
            writer.writeArray(members) { writer, member in member.encode(into: &writer) }
        case .register(let value):
            writer.writeArrayHeader(count: 2)
            writer.write("register")
            value.encode(into: &writer)
        case .custom(let name):
            writer.writeArrayHeader(count: 2)
            writer.write("custom")
            writer.write(name)
        }
    }
}
