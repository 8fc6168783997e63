/// What a replica and one sibling know of each other's device epochs
/// (`SyncFrame.leanCapability`): what this device announced and the sibling echoed, the epochs
/// the sibling announced, and the echo owed to it.
///
/// Invariant: one per sibling that sent or was sent an epoch form, kept apart from `PeerState`
/// because `Replica.send` changes it while callers hold a copy of the sibling's `PeerState`;
/// everything in it is cleared when the sibling restarts (its announcement), as the sibling
/// forgets what it held.
struct EpochLink {
    /// This device's epoch dimension the sibling echoed (`SyncFrame.epochEcho`): while it is the
    /// store's current one, frames stop announcing it.
    var echoed: DeviceID?
    /// This device's epoch dimension last announced to the sibling since it last started: while
    /// it is the store's current one, a push names it by reference without announcing it.
    var announced: DeviceID?
    /// The epoch dimensions the sibling announced since it last started, at most two: one reads
    /// its pushes' epoch references, two (copies of one device's store both running) read none
    /// (`DeviceID.unresolvedEpoch`).
    var epochs: [DeviceID] = []
    /// The echo the next heartbeat or digest to the sibling carries, if one is due; an empty one
    /// (this replica met an epoch reference it could not read) goes on the next frame of any kind.
    var echoDue: [UInt8]?
}
