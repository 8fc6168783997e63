import Foundation
import SyncKernel

/// What a namespace tells the conformance kit so the kit can generate rows and change them.
///
/// ## Implementation requirements
/// - `makeRow` returns a valid random row with a fresh key each call (all randomness from the
///   generator passed in).
/// - `hashedFields` lists every field the leaf commits to (other than the key) with a mutation
///   that changes only that field; `excludedFields` lists a mutation for every excluded field of
///   the `perDevice`, `residency` and `localIdentifier` categories.
/// - `touched(_:at:)` returns the row as a local edit at `clock` would leave it (for causal
///   namespaces: the change stamp set to `clock`); the default returns the row unchanged.
/// - `received(_:at:)` returns the row as this device rewrites one it received (stamping when it
///   first saw it, pinning a key); it may change excluded fields only. Default: unchanged.
/// - `localPasses` are the namespace's ingesters; each must be idempotent.
public protocol NamespaceConformance {
    /// The namespace under test.
    associatedtype Namespace: SyncNamespace

    /// A random valid row with a fresh key.
    static func makeRow(_ generator: inout FieldGenerator) -> Namespace.Row
    /// Every hashed field (other than the key), with a mutation.
    static var hashedFields: [FieldSpec<Namespace.Row>] { get }
    /// Mutations of the excluded per-device, residency and local-identifier fields.
    static var excludedFields: [FieldSpec<Namespace.Row>] { get }
    /// The row as a local edit at `clock` leaves it.
    static func touched(_ row: Namespace.Row, at clock: Date) -> Namespace.Row
    /// The row as this device rewrites one it received at `clock`.
    static func received(_ row: Namespace.Row, at clock: Date) -> Namespace.Row
    /// Local ingestion passes, each of which must be idempotent.
    static var localPasses: [LocalPass<Namespace>] { get }
}

extension NamespaceConformance {
    /// No excluded fields by default.
    public static var excludedFields: [FieldSpec<Namespace.Row>] { [] }
    /// A local edit leaves the row as it is by default.
    public static func touched(_ row: Namespace.Row, at clock: Date) -> Namespace.Row { row }
    /// Receiving a row rewrites nothing by default.
    public static func received(_ row: Namespace.Row, at clock: Date) -> Namespace.Row { row }
    /// No local passes by default.
    public static var localPasses: [LocalPass<Namespace>] { [] }
}
