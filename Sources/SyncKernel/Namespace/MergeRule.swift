import Foundation

/// How a namespace merges an incoming row into its local copy; the kernel dispatches on it.
///
/// There is one rule per behaviour. Choose the weakest one the data allows (see
/// docs/namespace-authoring.md): `.insertIfAbsent` for immutable rows, `.join()` for rows whose
/// every hashed field only grows (monotone bits, grow-only sets, operation logs folded into a
/// value), `.singleWriterLWW` for rows with exactly one author, `.causal` when any device edits.
///
/// Invariant: every rule is commutative and idempotent over the rows it merges, which is what
/// lets two devices pull from each other at the same time and still converge. The rule, with the
/// field its stamp reads, is part of the schema fingerprint.
public struct MergeRule<Row: Sendable>: Sendable {
    /// The behaviour the kernel dispatches on, with what each needs.
    package enum Kind: Sendable {
        case causal(stamp: @Sendable (Row) -> Int64, path: any AnyKeyPath & Sendable, setStamp: @Sendable (Row, Date) -> Row)
        case join(normalize: (@Sendable (Row) -> Row)?)
        case insertIfAbsent
        case singleWriterLWW(stamp: @Sendable (Row) -> Int64, path: any AnyKeyPath & Sendable, setStamp: @Sendable (Row, Int64) -> Row)
    }

    /// The rule's behaviour.
    package let kind: Kind

    /// Version vectors and `resolveMerge`: causality first, add-wins on presence, then the
    /// namespace's tie-break. Rows carry version vectors and deletes leave tombstones.
    ///
    /// `changeStamp` is the field RowClock watches to notice a local edit: compared for
    /// inequality only, never to order anything.
    public static func causal(changeStamp: WritableKeyPath<Row, Date> & Sendable) -> MergeRule {
        MergeRule(kind: .causal(stamp: { CanonicalWriter.wholeSeconds($0[keyPath: changeStamp]) }, path: changeStamp,
                                setStamp: { row, clock in
                                    var stamped = row
                                    stamped[keyPath: changeStamp] = clock
                                    return stamped
                                }))
    }

    /// `causal(changeStamp:)` for a stamp held as whole seconds.
    public static func causal(changeStamp: WritableKeyPath<Row, Int64> & Sendable) -> MergeRule {
        MergeRule(kind: .causal(stamp: { $0[keyPath: changeStamp] }, path: changeStamp, setStamp: { row, clock in
            var stamped = row
            stamped[keyPath: changeStamp] = CanonicalWriter.wholeSeconds(clock)
            return stamped
        }))
    }

    /// A join over rows: every hashed field declares its `FieldMerge` and the row's join is those
    /// field joins (excluded fields come from the local row); `normalize`, if given, canonicalises
    /// each copy before the field joins and the joined row after (a delete purging plaintext, an
    /// operation the rules refuse dropped, say) and must itself keep the join commutative,
    /// associative and idempotent.
    public static func join(normalize: (@Sendable (Row) -> Row)? = nil) -> MergeRule {
        MergeRule(kind: .join(normalize: normalize))
    }

    /// Append-only: an incoming row is inserted when its key is absent and otherwise ignored.
    public static var insertIfAbsent: MergeRule { MergeRule(kind: .insertIfAbsent) }

    /// One author orders all versions by its own stamp: the larger stamp wins, an equal stamp
    /// goes to the namespace's tie-break.
    public static func singleWriterLWW(stamp: WritableKeyPath<Row, Int64> & Sendable) -> MergeRule {
        MergeRule(kind: .singleWriterLWW(stamp: { $0[keyPath: stamp] }, path: stamp, setStamp: { row, value in
            var stamped = row
            stamped[keyPath: stamp] = value
            return stamped
        }))
    }

    /// A short stable name, used in reports and (with the stamp's field) in the schema fingerprint.
    public var name: String {
        switch kind {
        case .causal: return "causal"
        case .join: return "join"
        case .insertIfAbsent: return "insertIfAbsent"
        case .singleWriterLWW: return "singleWriterLWW"
        }
    }

    /// Whether rows carry version vectors (RowClock's causal entities).
    public var isCausal: Bool {
        if case .causal = kind { return true }
        return false
    }
}
