/// How one hashed field converges under the `.join` rule: a join of the two sides' values.
///
/// Invariant required of every merge: commutative, associative and idempotent over the values
/// it joins (the conformance kit checks it on generated rows), so two devices that pull from each
/// other in any order end with the same value. The name enters the schema fingerprint.
public struct FieldMerge<Value: Sendable>: Sendable {
    package enum Strategy: Sendable {
        case join(@Sendable (_ local: Value, _ incoming: Value) -> Value)
        case greaterEncoding
    }

    /// A short stable name, part of the schema fingerprint.
    public let name: String
    package let strategy: Strategy

    /// A merge you write; `name` identifies it in the fingerprint (rename it when it changes).
    public static func custom(_ name: String, _ join: @escaping @Sendable (_ local: Value, _ incoming: Value) -> Value) -> FieldMerge {
        FieldMerge(name: name, strategy: .join(join))
    }

    /// For content that is fixed when written and should never differ between devices: if two
    /// copies do differ, the one whose canonical encoding sorts greater wins on every device.
    public static var greaterEncoding: FieldMerge { FieldMerge(name: "greaterEncoding", strategy: .greaterEncoding) }
}

extension FieldMerge where Value == Bool {
    /// A bit that only goes from false to true.
    public static var or: FieldMerge { .custom("or") { $0 || $1 } }
}

extension FieldMerge where Value: Comparable {
    /// The greater value.
    public static var max: FieldMerge { .custom("max") { Swift.max($0, $1) } }
}

extension FieldMerge {
    /// A grow-only set held as a sorted array without repeats: the union, sorted.
    public static func sortedUnion<Element: Hashable & Comparable & Sendable>() -> FieldMerge where Value == [Element] {
        .custom("sortedUnion") { Array(Set($0).union($1)).sorted() }
    }
}

extension FieldMerge where Value == String {
    /// Fill-if-empty: an empty side takes the other's value and a held value is never
    /// overwritten by an empty one. Two different held values resolve to the greater UTF-8
    /// bytes, so every device still agrees.
    public static var fillIfEmpty: FieldMerge {
        .custom("fillIfEmpty") { local, incoming in
            if local.isEmpty { return incoming }
            if incoming.isEmpty { return local }
            return Array(local.utf8).lexicographicallyPrecedes(Array(incoming.utf8)) ? incoming : local
        }
    }
}

extension FieldMerge where Value == [UInt8]? {
    /// Fill-if-empty for an optional byte string whose empty and absent forms are one state: the
    /// result is absent or non-empty; two different held values resolve to the greater bytes.
    public static var fillIfEmpty: FieldMerge {
        .custom("fillIfEmpty") { local, incoming in
            let (mine, theirs) = (local.flatMap { $0.isEmpty ? nil : $0 }, incoming.flatMap { $0.isEmpty ? nil : $0 })
            guard let mine else { return theirs }
            guard let theirs else { return mine }
            return mine.lexicographicallyPrecedes(theirs) ? theirs : mine
        }
    }
}
