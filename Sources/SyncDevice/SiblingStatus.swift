import SyncKernel

/// One sibling as a device's status shows it: when the two last finished a round, when the
/// device last accepted an envelope from it, and whether the two are in sync.
///
/// Invariants: times are milliseconds since 1970 of the device's wall clock, nil when it never
/// happened (a sibling never heard from, or always already in sync); `inSync` is true only when
/// the sibling's last digest equals the device's current digest (read live from the replica, or
/// as the device last recorded it in its siblings file).
public struct SiblingStatus: Sendable, Hashable {
    /// The sibling.
    public let device: DeviceID
    /// When the last reconcile round with the sibling reached matching roots.
    public let lastRound: Int64?
    /// When the device last accepted an envelope from the sibling.
    public let lastSeen: Int64?
    /// Whether the sibling's last digest equals this device's current digest.
    public let inSync: Bool

    /// A sibling's status.
    public init(device: DeviceID, lastRound: Int64?, lastSeen: Int64?, inSync: Bool) {
        self.device = device
        self.lastRound = lastRound
        self.lastSeen = lastSeen
        self.inSync = inSync
    }
}
