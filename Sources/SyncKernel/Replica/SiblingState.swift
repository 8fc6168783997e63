/// What a replica knows of one sibling at one moment: whether it has heard from it, whether the
/// two were last seen in sync, and whether a round or a storm back-off is under way with it.
///
/// Invariants: `inSync` implies `hasShownDigest`; `inSync` is true exactly when the sibling's
/// last digest equals this replica's current digest in the layout the sibling reads (a local
/// write or an applied row since then makes it false until the sibling shows the new state).
public struct SiblingState: Sendable, Hashable {
    /// The sibling.
    public let device: DeviceID
    /// Whether the sibling has sent a digest since this replica was created.
    public let hasShownDigest: Bool
    /// Whether the sibling's last digest equals this replica's current one.
    public let inSync: Bool
    /// Whether a reconcile round with the sibling is under way (requests sent, roots not matched yet).
    public let reconciling: Bool
    /// Until when (the host's clock, milliseconds) the storm guard holds the sibling back; nil when it does not.
    public let backoffUntil: Int64?

    /// A sibling's state.
    public init(device: DeviceID, hasShownDigest: Bool, inSync: Bool, reconciling: Bool, backoffUntil: Int64?) {
        self.device = device
        self.hasShownDigest = hasShownDigest
        self.inSync = hasShownDigest && inSync
        self.reconciling = reconciling
        self.backoffUntil = backoffUntil
    }
}
