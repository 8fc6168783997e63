/// Where a damaged row was found and quarantined: a stable machine-readable name, stored beside
/// the quarantined row.
///
/// Invariants: every site the kernel writes is one of the static members; raw values never
/// change. A struct, like `QuarantineReason`, so an unknown site from a later build still reads.
public struct QuarantineSite: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The stored name, for example "open".
    public let rawValue: String

    /// A site by its stored name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The stored name.
    public var description: String { rawValue }

    /// Opening the store: a row-format migration, a row whose leaf was not stored yet, or the
    /// first registration of a causal namespace.
    public static let open = QuarantineSite(rawValue: "open")
    /// A read: `KernelStore.row(_:key:)`, `rows(_:)`, or a transaction's `row(forKey:)` and `allRows()`.
    public static let read = QuarantineSite(rawValue: "read")
    /// Shipping rows to a peer (an answer to a request, a sketch or a trie listing, a ship-back).
    public static let ship = QuarantineSite(rawValue: "ship")
    /// Merging a peer's row over the local one.
    public static let merge = QuarantineSite(rawValue: "merge")
    /// `KernelStore.repair()` (`synckernel check --repair`).
    public static let repair = QuarantineSite(rawValue: "repair")
}
