import NatsRelay
import SyncEnvelope
import SyncKernel

/// What a running `SyncDevice` reports: its lifecycle, its relay connection, every envelope the
/// gate dropped, the rounds it starts, and every event of its replica.
///
/// Invariants: `started` is the first event of each run and `stopped` the last; every envelope the
/// gate drops is reported once (`envelopeDropped`, its frame never reached the replica); a round
/// the replica starts is reported once (`roundStarted`), and a round that reached matching roots
/// once (`replica(.converged)`); no event carries key material or row contents.
public enum SyncDeviceEvent: Sendable, Hashable {
    /// The device started: keys loaded, store open, relay connection made (it may still be
    /// connecting), loop running.
    case started(device: DeviceID)
    /// The device stopped: loop ended, relay closed, store closed.
    case stopped
    /// The relay connection changed state; on `.connected` and `.reconnected` the device
    /// announced itself to its siblings before this was reported.
    case relay(NatsRelayEvent)
    /// The self-gate dropped an envelope of `bytes` bytes for `reason`.
    case envelopeDropped(reason: EnvelopeDropReason, bytes: Int)
    /// A frame for `recipient` could not be sealed and was not sent.
    case sealFailed(recipient: DeviceID, error: SyncKernelError)
    /// A reconcile round with `peer` started: its digest differed, requests went out.
    case roundStarted(peer: DeviceID)
    /// An event of the device's replica (`converged` ends a round, `stormSuspected` is a storm).
    case replica(ReplicaEvent)
}
