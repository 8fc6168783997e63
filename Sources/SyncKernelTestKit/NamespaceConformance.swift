import Foundation
import SyncKernel

/// What a namespace tells the conformance kit beyond its declaration, so the kit can make rows.
///
/// The kit reads the fields, their roles and their codecs off the namespace's `RowSchema` and
/// generates new values for every hashed and excluded field itself; a subject adds only what the
/// declaration cannot say.
///
/// ## Implementation requirements
/// - `makeRow` returns a valid random row with a fresh key each call (all randomness from the
///   generator passed in).
/// - `fieldMutations` gives a mutation for every field whose codec is `.custom` (the kit cannot
///   invent values for it) and may override the generated one for any other field, by the
///   field's declared name (`Variant.field` inside a variant); each must change that field only.
/// - `received(_:at:)` returns the row as this device rewrites one it received (stamping when it
///   first saw it, pinning a key); it may change excluded fields only. Default: unchanged.
/// - `localPasses` are the namespace's ingesters; each must be idempotent.
public protocol NamespaceConformance {
    /// The namespace under test.
    associatedtype Namespace: SyncNamespace

    /// A random valid row with a fresh key.
    static func makeRow(_ generator: inout FieldGenerator) -> Namespace.Row
    /// Mutations for fields the kit cannot generate values for, by declared name.
    static var fieldMutations: [FieldSpec<Namespace.Row>] { get }
    /// The row as this device rewrites one it received at `clock`.
    static func received(_ row: Namespace.Row, at clock: Date) -> Namespace.Row
    /// Local ingestion passes, each of which must be idempotent.
    static var localPasses: [LocalPass<Namespace>] { get }
}

extension NamespaceConformance {
    /// No hand-written mutations by default.
    public static var fieldMutations: [FieldSpec<Namespace.Row>] { [] }
    /// Receiving a row rewrites nothing by default.
    public static func received(_ row: Namespace.Row, at clock: Date) -> Namespace.Row { row }
    /// No local passes by default.
    public static var localPasses: [LocalPass<Namespace>] { [] }
}
