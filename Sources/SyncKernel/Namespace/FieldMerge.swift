import Foundation
/// How one hashed field converges under the `.join` rule: a join of the two sides' values.
///
/// Invariant required of every merge: commutative, associative and idempotent over the values
/// it joins (the conformance kit checks it on generated rows), so two devices that pull from each
/// other in any order end with the same value. The name enters the schema fingerprint. A merge
/// that settles two held values by a rule that is not the data's own (fill-if-empty: two
/// different held values go to the greater) names them a `disagreement`, which the kernel reports
/// (`ApplyOutcome.backfillConflicts`) rather than settling silently.
public struct FieldMerge<Value: Sendable>: Sendable {
    /// How the kernel applies the merge.
    package enum Strategy: Sendable {
        case join(@Sendable (_ local: Value, _ incoming: Value) -> Value)
        case greaterEncoding
        case register
    }

    /// A short stable name, part of the schema fingerprint.
    public let name: String
    /// How the kernel applies the merge.
    package let strategy: Strategy
    /// What the merge means for a local edit (the conformance kit judges edits by it).
    package let kind: MergeKind
    /// Whether two values the merge joins disagree (nil: the merge never reports one).
    package let disagreement: (@Sendable (_ local: Value, _ incoming: Value) -> Bool)?

    /// Creates a merge.
    package init(name: String, strategy: Strategy, kind: MergeKind,
                 disagreement: (@Sendable (_ local: Value, _ incoming: Value) -> Bool)? = nil) {
        self.name = name
        self.strategy = strategy
        self.kind = kind
        self.disagreement = disagreement
    }

    /// A merge you write; `name` identifies it in the fingerprint (rename it when it changes).
    ///
    /// The kit treats the field as a register: a local edit sets any value, and the device's own
    /// join must keep what it set (a merge that prefers the held value, by a clock say, fails).
    /// Prefer the standard merges, each of which the kit checks on its own.
    public static func custom(_ name: String, _ join: @escaping @Sendable (_ local: Value, _ incoming: Value) -> Value) -> FieldMerge {
        FieldMerge(name: name, strategy: .join(join), kind: .custom)
    }

    /// For content that is fixed when written and should never differ between devices: if two
    /// copies do differ, the one whose canonical encoding sorts greater wins on every device.
    public static var greaterEncoding: FieldMerge { FieldMerge(name: "greaterEncoding", strategy: .greaterEncoding, kind: .immutable) }

    /// A lattice join (a value only grows under it): a legal local edit joins its value with the
    /// held one; `disagreement`, when given, says when two held values disagree.
    static func lattice(_ name: String, disagreement: (@Sendable (_ local: Value, _ incoming: Value) -> Bool)? = nil,
                        _ join: @escaping @Sendable (_ local: Value, _ incoming: Value) -> Value) -> FieldMerge {
        FieldMerge(name: name, strategy: .join(join), kind: .lattice, disagreement: disagreement)
    }
}

extension FieldMerge where Value == Bool {
    /// A bit that only goes from false to true.
    public static var or: FieldMerge { .lattice("or") { $0 || $1 } }
}

extension FieldMerge where Value: Comparable {
    /// The greater value.
    public static var max: FieldMerge { .lattice("max") { Swift.max($0, $1) } }
}

extension FieldMerge {
    /// The greater of two optional values, absent below every value: a field that is set once and
    /// only grows afterwards (a last-opened date, a high-water mark). `Optional` is not
    /// `Comparable`, so `.max` on `Date?` needs this overload.
    static func presentMax<Wrapped: Comparable & Sendable>(_ name: String) -> FieldMerge where Value == Wrapped? {
        .lattice(name) { local, incoming in
            guard let mine = local else { return incoming }
            guard let theirs = incoming else { return mine }
            return Swift.max(mine, theirs)
        }
    }
}

extension FieldMerge where Value == Date? {
    /// The later date, an absent one below every date.
    public static var max: FieldMerge { .presentMax("max") }
}

extension FieldMerge where Value == Int64? {
    /// The greater value, an absent one below every value.
    public static var max: FieldMerge { .presentMax("max") }
}

extension FieldMerge where Value == UInt64? {
    /// The greater value, an absent one below every value.
    public static var max: FieldMerge { .presentMax("max") }
}

extension FieldMerge {
    /// A grow-only set held as a sorted array without repeats: the union, sorted. The elements'
    /// `==` must be exact (bytewise for text: Swift's `String ==` treats canonically equivalent
    /// forms as equal, so a `Set` would keep whichever arrived first).
    public static func sortedUnion<Element: Hashable & Comparable & Sendable>() -> FieldMerge where Value == [Element] {
        .lattice("sortedUnion") { Array(Set($0).union($1)).sorted() }
    }
}

extension FieldMerge where Value == String {
    /// The greater value by UTF-8 bytes (Swift's `<` on strings treats canonically equivalent
    /// forms as equal, which would let the order of arrival pick between "é" and "e\u{301}").
    public static var max: FieldMerge {
        .lattice("max") { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) ? $1 : $0 }
    }

    /// Fill-if-empty: an empty side takes the other's value and a held value is never
    /// overwritten by an empty one. Two different held values resolve to the greater UTF-8
    /// bytes, so every device still agrees, and are a disagreement the kernel reports.
    public static var fillIfEmpty: FieldMerge {
        .lattice("fillIfEmpty", disagreement: { local, incoming in
            !local.isEmpty && !incoming.isEmpty && Array(local.utf8) != Array(incoming.utf8)
        }) { local, incoming in
            if local.isEmpty { return incoming }
            if incoming.isEmpty { return local }
            return Array(local.utf8).lexicographicallyPrecedes(Array(incoming.utf8)) ? incoming : local
        }
    }
}

extension FieldMerge where Value == [UInt8]? {
    /// Fill-if-empty for an optional byte string whose empty and absent forms are one state: the
    /// result is absent or non-empty; two different held values resolve to the greater bytes, and
    /// are a disagreement the kernel reports.
    public static var fillIfEmpty: FieldMerge {
        .lattice("fillIfEmpty", disagreement: { local, incoming in
            guard let mine = local, !mine.isEmpty, let theirs = incoming, !theirs.isEmpty else { return false }
            return mine != theirs
        }) { local, incoming in
            let (mine, theirs) = (local.flatMap { $0.isEmpty ? nil : $0 }, incoming.flatMap { $0.isEmpty ? nil : $0 })
            guard let mine else { return theirs }
            guard let theirs else { return mine }
            return mine.lexicographicallyPrecedes(theirs) ? theirs : mine
        }
    }
}

extension FieldMerge {
    /// A `Register`: the greater edit counter wins, so an edit made after seeing another wins over
    /// it whatever the clocks say; two edits with one counter (made concurrently) go to the
    /// greater value encoding on every device.
    public static func register<Wrapped: Sendable & Hashable>() -> FieldMerge where Value == Register<Wrapped> {
        FieldMerge(name: "register", strategy: .register, kind: .register)
    }
}

extension FieldMerge where Value == [String] {
    /// A grow-only set of strings held as an array sorted by UTF-8 bytes without repeats; two
    /// strings are one member only when their bytes are equal (never by canonical equivalence).
    public static func sortedUnion() -> FieldMerge {
        .lattice("sortedUnion") { local, incoming in
            var seen: Set<[UInt8]> = []
            return (local + incoming).map { Array($0.utf8) }.filter { seen.insert($0).inserted }.sorted { $0.lexicographicallyPrecedes($1) }
                .map { String(decoding: $0, as: UTF8.self) }
        }
    }
}

extension FieldMerge where Value == [[UInt8]] {
    /// A grow-only set of byte strings held as a bytewise-sorted array without repeats.
    public static func sortedUnion() -> FieldMerge {
        .lattice("sortedUnion") { local, incoming in
            Array(Set(local).union(incoming)).sorted { $0.lexicographicallyPrecedes($1) }
        }
    }
}
