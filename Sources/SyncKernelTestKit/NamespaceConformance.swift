import Foundation
import SyncKernel

/// What a namespace tells the conformance kit beyond its declaration, so the kit can make rows,
/// edit them as the app would, and exercise what only the app knows (offloading, retracting).
///
/// The kit reads the fields, their roles, codecs and merges off the namespace's `RowSchema` and
/// generates legal edits for every hashed and excluded field itself; a subject adds only what the
/// declaration cannot say.
///
/// ## Implementation requirements
/// - `makeRow` returns a valid random row with a fresh key each call (all randomness from the
///   generator passed in).
/// - `fieldMutations` gives a mutation for every field whose codec is `.custom` (the kit cannot
///   invent values for it) and may override the generated one for any other field, by the
///   field's declared name (`Variant.field` inside a variant); each must change that field only,
///   the way the app legally edits it.
/// - `touched(_:at:)` returns the row as a local edit at `clock` leaves it, beyond the field
///   edited: the default stamps a causal rule's change stamp with `clock` and moves a single
///   writer's stamp past its old value; a `.join()` namespace whose app stamps something on every
///   edit (an `updatedAt`) overrides it. The kit calls it with skewed and backward clocks.
/// - `received(_:at:)` returns the row as this device rewrites one it received (stamping when it
///   first saw it, pinning a key); it may change excluded fields only. Default: unchanged.
/// - `residency`, when the namespace offloads content, says how a row is offloaded and restored.
/// - `retraction`, for a `.join()` namespace whose rows can be deleted or retracted in their own
///   data, says how a device does it and how to see that it happened.
/// - `localPasses` are the namespace's ingesters; each must be idempotent, give the same rows on
///   every device for one source, and not bring back a synced row a device deleted.
public protocol NamespaceConformance {
    /// The namespace under test.
    associatedtype Namespace: SyncNamespace

    /// A random valid row with a fresh key.
    static func makeRow(_ generator: inout FieldGenerator) -> Namespace.Row
    /// Mutations for fields the kit cannot generate values for, by declared name.
    static var fieldMutations: [FieldSpec<Namespace.Row>] { get }
    /// The row as a local edit at `clock` leaves it, beyond the field edited (nil: the rule's default).
    static func touched(_ row: Namespace.Row, at clock: Date) -> Namespace.Row?
    /// The row as this device rewrites one it received at `clock`.
    static func received(_ row: Namespace.Row, at clock: Date) -> Namespace.Row
    /// How a row is offloaded and restored, when the namespace offloads content.
    static var residency: Residency<Namespace>? { get }
    /// How a device retracts a row in its data, for a `.join()` namespace.
    static var retraction: Retraction<Namespace.Row>? { get }
    /// Local ingestion passes.
    static var localPasses: [LocalPass<Namespace>] { get }
}

extension NamespaceConformance {
    /// No hand-written mutations by default.
    public static var fieldMutations: [FieldSpec<Namespace.Row>] { [] }
    /// The rule's own stamping by default.
    public static func touched(_ row: Namespace.Row, at clock: Date) -> Namespace.Row? { nil }
    /// Receiving a row rewrites nothing by default.
    public static func received(_ row: Namespace.Row, at clock: Date) -> Namespace.Row { row }
    /// No offloading by default.
    public static var residency: Residency<Namespace>? { nil }
    /// No retraction by default.
    public static var retraction: Retraction<Namespace.Row>? { nil }
    /// No local passes by default.
    public static var localPasses: [LocalPass<Namespace>] { [] }
}
