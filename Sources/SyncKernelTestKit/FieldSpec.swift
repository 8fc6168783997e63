import Foundation
import SyncKernel

/// One field of a row as the kit sees it: a name, a way to read it and a way to change it.
///
/// Invariant: `mutate` returns a row that differs from its input in this field only (never in
/// the row's key); `read` returns a value that changes exactly when the field does.
public struct FieldSpec<Row>: Sendable {
    /// The field's name, as the row type and `excludedFields` spell it.
    public let name: String
    /// Reads the field's value.
    public let read: @Sendable (Row) -> AnyHashable
    /// Returns the row with this field changed.
    public let mutate: @Sendable (Row, inout FieldGenerator) -> Row
    /// For date fields: the row with sub-second noise added to this field (which must not move the leaf).
    public let addSubSecondNoise: (@Sendable (Row) -> Row)?

    /// A field reached through a writable key path, with a generator of new values.
    public static func keyPath<Value: Hashable & Sendable>(_ name: String, _ path: WritableKeyPath<Row, Value> & Sendable,
                                                _ values: ValueGenerator<Value>) -> FieldSpec {
        FieldSpec(name: name, read: { AnyHashable($0[keyPath: path]) }, mutate: { row, generator in
            var changed = row
            changed[keyPath: path] = values.next(&generator)
            return changed
        }, addSubSecondNoise: nil)
    }

    /// A date field reached through a writable key path; the kit also checks sub-second noise.
    public static func date(_ name: String, _ path: WritableKeyPath<Row, Date> & Sendable) -> FieldSpec {
        FieldSpec(name: name, read: { AnyHashable($0[keyPath: path]) }, mutate: { row, generator in
            var changed = row
            changed[keyPath: path] = generator.date()
            return changed
        }, addSubSecondNoise: { row in
            var noisy = row
            noisy[keyPath: path] = row[keyPath: path].addingTimeInterval(0.731)
            return noisy
        })
    }

    /// A field the namespace reads and changes itself (enum payloads, derived encodings).
    public static func custom(_ name: String, read: @escaping @Sendable (Row) -> AnyHashable,
                              mutate: @escaping @Sendable (Row, inout FieldGenerator) -> Row) -> FieldSpec {
        FieldSpec(name: name, read: read, mutate: mutate, addSubSecondNoise: nil)
    }

    /// Creates a field spec.
    public init(name: String, read: @escaping @Sendable (Row) -> AnyHashable,
                mutate: @escaping @Sendable (Row, inout FieldGenerator) -> Row,
                addSubSecondNoise: (@Sendable (Row) -> Row)? = nil) {
        self.name = name
        self.read = read
        self.mutate = mutate
        self.addSubSecondNoise = addSubSecondNoise
    }
}
