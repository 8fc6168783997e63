import SyncRelay
import NatsRelay
import SnapshotTransfer
import SyncEnvelope
import SyncJoin
import SyncKernel

/// What a running `SyncDevice` reports: its lifecycle, its relay connection, every envelope the
/// gate dropped, the rounds it starts, and every event of its replica.
///
/// Invariants: `started` is the first event of each run and `stopped` the last; every envelope the
/// gate drops is counted in the status and in the next `dropsSummarised`, and reported once on
/// its own (`envelopeDropped`, its frame never reached the replica) when the configuration asks
/// for it (`reportsEachDrop`); a round
/// the replica starts is reported once (`roundStarted`), and a round that reached matching roots
/// once (`replica(.converged)`); a sibling the gate learned is reported once (`siblingLearned`),
/// before any frame of it is handled; every join and snapshot step is reported (`joinResponder`,
/// `joinRequester`, the `snapshot...` cases); no event carries key material or row contents (a
/// snapshot answer is told as a `SnapshotAnswer`, without the offer's blob id, key or hash).
public enum SyncDeviceEvent: Sendable, Hashable {
    /// The device started: keys loaded, store open, relay connection made (it may still be
    /// connecting), loop running.
    case started(device: DeviceID)
    /// The device stopped: loop ended, relay closed, store closed.
    case stopped
    /// The relay connection changed state; on `.connected` and `.reconnected` the device
    /// announced itself to its siblings before this was reported.
    case relay(RelayEvent)
    /// The self-gate dropped an envelope of `bytes` bytes for `reason`.
    case envelopeDropped(reason: EnvelopeDropReason, bytes: Int)
    /// Envelopes the gate dropped (by reason) and payloads the relay layer dropped (by reason)
    /// in the last `periodMillis` milliseconds; reported at most once every
    /// `SyncDeviceConfiguration.dropSummaryInterval`, only for a period with drops.
    case dropsSummarised(envelopes: [EnvelopeDropReason: Int], relay: [RelayDropReason: Int], periodMillis: Int64)
    /// A frame for `recipient` could not be sealed and was not sent.
    case sealFailed(recipient: DeviceID, error: SyncKernelError)
    /// A handshake message of `sibling` was refused (it did not decode, or its hello could not be
    /// answered); frames to and from it keep going in whole envelopes.
    case sessionRefused(sibling: DeviceID)
    /// A reconcile round with `peer` started: its digest differed, requests went out.
    case roundStarted(peer: DeviceID)
    /// An event of the device's replica (`converged` ends a round, `stormSuspected` is a storm).
    case replica(ReplicaEvent)
    /// The gate accepted an envelope of a device this account certified that was not in the
    /// roster (a device that joined through another sibling): it is a sibling from now on.
    case siblingLearned(device: DeviceID)
    /// An accepted envelope's transfer message was dropped (another account, malformed).
    case transferDropped(TransferDropReason)
    /// This device's side of admitting others: a request dropped, an approval asked, its end.
    case joinResponder(JoinResponderEvent)
    /// This device's side of joining: a request sent, acknowledged, the decision.
    case joinRequester(JoinRequesterEvent)
    /// A sibling asked this device for a snapshot.
    case snapshotRequested(peer: DeviceID)
    /// This device answered a sibling's snapshot request (an offer, a decline or a failure).
    case snapshotAnswered(peer: DeviceID, answer: SnapshotAnswer)
    /// The sibling this device offered a snapshot to says how it went: absorbed (`refusal` nil)
    /// or set aside, and why.
    case snapshotAcknowledged(peer: DeviceID, refusal: SnapshotAnswer.Refusal?)
    /// This device sent its snapshot request to `peer` (`attempt` from 1; the first one wakes).
    case snapshotRequestSent(peer: DeviceID, attempt: Int, wake: Bool)
    /// A sibling answered this device's snapshot request.
    case snapshotReply(peer: DeviceID, answer: SnapshotAnswer)
    /// How far absorbing the offered snapshot got (bytes downloaded, rows imported).
    case snapshotProgress(SnapshotProgress)
    /// The snapshot `peer` offered was absorbed.
    case snapshotAbsorbed(peer: DeviceID, report: SnapshotAbsorbReport)
    /// The snapshot `peer` offered could not be absorbed (nothing of it was imported).
    case snapshotAbandoned(peer: DeviceID, reason: SnapshotAnswer.Refusal)
    /// Asking for a snapshot ended without one (`snapshotDeclined`, `snapshotSiblingFailed`,
    /// `snapshotTimedOut`, or the last absorb's error): the digest loop fills the store instead.
    case snapshotFailed(ErrorReport)
}
