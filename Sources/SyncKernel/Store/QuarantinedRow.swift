/// A damaged row the store set aside in its quarantine table (`sk_quarantine`): removed from
/// the rows and from the namespace's structure in the same transaction, kept with its bytes for
/// the host to inspect.
///
/// Invariant: `id` is the quarantine table's own sequence number, increasing in the order rows
/// were quarantined; `quarantinedAt` is the local wall clock in seconds since 1970, a note for
/// people that never orders or decides anything.
public struct QuarantinedRow: Sendable, Hashable {
    /// The quarantine entry's sequence number.
    public let id: Int64
    /// The row as it was found.
    public let damage: DamagedRow
    /// Where it was found.
    public let site: QuarantineSite
    /// When it was quarantined (local wall clock, seconds since 1970).
    public let quarantinedAt: Int64

    /// The namespace the row belonged to.
    public var namespace: String { damage.namespace }
    /// The key it was stored under.
    public var key: [UInt8] { damage.key }
    /// Why it was quarantined.
    public var reason: QuarantineReason { damage.reason }
}
