/// What applying a `reconcile_resp` changed.
public struct ApplyOutcome: Sendable, Hashable {
    /// The namespace merged.
    public let namespace: String
    /// Incoming rows that changed the stored row.
    public let rowsApplied: Int
    /// Incoming tombstones that deleted a row or recorded a new delete.
    public let tombstonesApplied: Int
    /// Whether the namespace's root moved.
    public let digestChanged: Bool
    /// Keys to ship back to the response's sender, sorted: those it asked for (`want`) without
    /// shipping a row of its own, and those whose state here held something the shipped version
    /// did not (a concurrent write, a later delete), found while merging.
    public let keysToShipBack: [[UInt8]]

    /// Both outcomes of one namespace taken together (for a response that came in parts).
    public func combined(with other: ApplyOutcome) -> ApplyOutcome {
        ApplyOutcome(namespace: namespace, rowsApplied: rowsApplied + other.rowsApplied,
                     tombstonesApplied: tombstonesApplied + other.tombstonesApplied,
                     digestChanged: digestChanged || other.digestChanged,
                     keysToShipBack: Set(keysToShipBack + other.keysToShipBack).sorted(by: [UInt8].keyPrecedes))
    }
}
