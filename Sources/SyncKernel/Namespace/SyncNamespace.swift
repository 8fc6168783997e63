/// The plug-in point: one kind of synced data, declared once, stored, hashed, shipped and merged
/// by the kernel.
///
/// A namespace names itself, declares its row once (`schema`: the key and every field, each
/// hashed or excluded with its reason) and picks a merge rule. The kernel derives everything
/// else from that declaration; it stores rows in a table of the namespace's own (`ns_<name>`)
/// and never names a namespace.
///
/// ## Implementation requirements
/// - `name` is stable forever: ASCII letters, digits and `_`, at most 48 bytes, unique (ignoring
///   case) in a fleet. It is the leaf domain separator's suffix.
/// - `schema` declares every stored property of `Row` once. The key is the stable cross-device
///   key: the same row has the same key on every device, no two rows share one, never a local
///   row id. A field may be hashed only if the merge rule converges it; every other field is
///   excluded with its category and a reason.
/// - Under `.join()`, every hashed field except the key declares its `FieldMerge`; under the
///   other rules none does (the row is the unit of merge there). `NamespaceSet` refuses a
///   namespace that breaks a rule it can check (an undeclared property, a missing or stray
///   merge, an excluded field in a `.wholeRow` leaf, an unhashed key).
/// - `adopt(_:over:)` may only carry fields that are excluded: the row it returns must have the
///   leaf of `incoming` (the kernel checks on every merge and refuses the response otherwise).
/// - `incomingWinsTie` is a strict order that reads no clock: the same answer on every device,
///   never true both ways. It may refuse a pair it cannot order (a value out of the range it
///   compares) by throwing: the kernel fails the whole apply with that error and writes nothing
///   of it, never reading the refusal as "does not win".
/// - `isDeviceDerived` depends on fields excluded as `.deviceDerived` only.
/// - `refusedOperations(in:)` counts what the namespace's rules refuse in a row (an edit made by
///   an account that is not the row's author); the rule must drop exactly those (under `.join()`,
///   in its `normalize`), so a refused operation never reaches a leaf. The kernel counts them in
///   every shipped row (`ApplyOutcome.refusedOperations`) and refuses a local save of a row that
///   holds any (`notTheAuthor`).
/// - Bump `schemaVersion` when a hook (`adopt`, `incomingWinsTie`, `isDeviceDerived`, a custom
///   codec's or merge's behaviour under an unchanged name, `validate`) changes what a device stores
///   or shows: the declaration cannot see inside closures. Everything else that changes a leaf, a
///   row format or a merge changes the schema fingerprint by itself.
public protocol SyncNamespace: Sendable {
    /// The row type this namespace syncs.
    associatedtype Row: Sendable

    /// The namespace's stable name.
    static var name: String { get }
    /// The row's one declaration: key, fields, leaf layout.
    static var schema: RowSchema<Row> { get }
    /// How an incoming row merges into the local copy (causal membership follows from it).
    static var mergeRule: MergeRule<Row> { get }

    /// How a reconcile compares this namespace (default `.ranges`).
    static var granularity: ReconcileGranularity { get }
    /// A version for changes the declaration cannot see (default 1); part of the fingerprint.
    static var schemaVersion: Int { get }
    /// Readers of earlier row formats (default none).
    static var migrations: [RowMigration<Row>] { get }
    /// The row to store when `incoming` wins over `local`. Default: `incoming` with this
    /// device's per-device and local-identifier fields kept from `local` (reset to the schema's
    /// blank values when there is no local copy).
    static func adopt(_ incoming: Row, over local: Row?) -> Row
    /// Between two live rows that causality (or a single writer's stamp) cannot order, whether
    /// `incoming` wins over `local`, or a typed error when the pair cannot be ordered. Default:
    /// the greater leaf encoding wins.
    static func incomingWinsTie(_ incoming: Row, over local: Row) throws(SyncKernelError) -> Bool
    /// Whether `row` is re-derived on each device from a local source of truth (a calendar, a
    /// file system). Device-derived rows are stored but get no leaf, are never shipped, and are
    /// dropped when a sibling ships one. Default: never.
    static func isDeviceDerived(_ row: Row) -> Bool
    /// How many operations `row` holds that the namespace's rules refuse (made by an account that
    /// is not the row's author), which its merge drops. Default: none.
    static func refusedOperations(in row: Row) -> Int
}
