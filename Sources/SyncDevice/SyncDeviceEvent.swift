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
/// once (`roundCompleted`); a sibling the gate learned is reported once (`siblingLearned`),
/// before any frame of it is handled; every join and snapshot step is reported (the approval,
/// sign-in, `join...` and `snapshot...` cases); no event carries key material or row contents (a
/// snapshot answer is told as a `SnapshotAnswer`, without the offer's blob id, key or hash).
///
/// Each case is one `event` name of the JSON form (`name`), and its values are plain values,
/// types of this module, or the values the device's own calls take and return (`DeviceID`,
/// `PendingApproval`, `ApprovalID`, a drop reason the status counts, ...): never another
/// component's event, outcome or error type; an error is told as its `ErrorReport`.
public enum SyncDeviceEvent: Sendable, Hashable {
    /// The device started: keys loaded, store open, relay connection made (it may still be
    /// connecting), loop running.
    case started(device: DeviceID)
    /// The device stopped: loop ended, relay closed, store closed.
    case stopped
    /// The relay connection is up for the first time this run; the device announced itself to
    /// its siblings before this was reported.
    case relayConnected
    /// The relay connection was lost; the relay reconnects on its own, and frames sent meanwhile
    /// are lost (the loop's retries recover them).
    case relayDisconnected
    /// The relay connection is back; the device announced itself to its siblings again first.
    case relayReconnected
    /// The relay connection closed for good (the device is stopping, or the relay gave up).
    case relayClosed
    /// The self-gate dropped an envelope of `bytes` bytes for `reason`.
    case envelopeDropped(reason: EnvelopeDropReason, bytes: Int)
    /// Envelopes the gate dropped (by reason) and payloads the relay layer dropped (by reason)
    /// in the last `periodMillis` milliseconds; reported at most once every
    /// `SyncDeviceConfiguration.dropSummaryInterval`, only for a period with drops.
    case dropsSummarised(envelopes: [EnvelopeDropReason: Int], relay: [RelayDropReason: Int], periodMillis: Int64)
    /// A frame for `recipient` could not be sealed and was not sent.
    case sealFailed(recipient: DeviceID, error: ErrorReport)
    /// A handshake message of `sibling` was refused (it did not decode, or its hello could not be
    /// answered); frames to and from it keep going in whole envelopes.
    case sessionRefused(sibling: DeviceID)
    /// A reconcile round with `peer` started: its digest differed, requests went out.
    case roundStarted(peer: DeviceID)
    /// A round with `peer` reached matching roots.
    case roundCompleted(peer: DeviceID)
    /// A frame of `peer`'s was refused before anything of it was applied (it did not decode,
    /// named another account, or was of a kind this build does not speak).
    case frameRefused(peer: DeviceID, error: ErrorReport)
    /// What `peer` announced its build reads, sorted, when it first says so and whenever it changes.
    case siblingCapabilities(peer: DeviceID, capabilities: [String])
    /// `peer` runs another schema: its frames are set aside until both sides run the same one
    /// (reported once per sibling and schema).
    case schemaMismatch(peer: DeviceID, local: SchemaFingerprint, remote: SchemaFingerprint)
    /// Rounds with `peer` over `namespaces` stopped making progress: none starts with it before
    /// `backoffUntil` (the loop's milliseconds), and its requests are still answered.
    case stormSuspected(peer: DeviceID, namespaces: [String], backoffUntil: Int64)
    /// Rows and delete versions of `peer`'s were merged and committed.
    case applied(peer: DeviceID, changes: AppliedChanges)
    /// Rows of `peer`'s for `namespace` could not be stored; nothing of that frame was written.
    case applyFailed(peer: DeviceID, namespace: String, error: ErrorReport)
    /// The store failed outside a merge (reading the digest, keeping change marks).
    case storeFailed(error: ErrorReport)
    /// The store took a fresh device epoch (`reason`): restored, copied, rolled back, or shown by
    /// `peer`'s rows to be behind what this device wrote before.
    case storeRolledBack(reason: EpochReason, epoch: UInt64, peer: DeviceID?)
    /// Versions of `keys` from `peer` carried a vector of this store's but other content (two writes
    /// counted alike by a store that lost its history); both are kept as concurrent versions.
    case versionsCollided(peer: DeviceID, namespace: String, keys: [[UInt8]])
    /// Stored rows failed their check and were set aside; siblings send their copies back.
    case rowsQuarantined([QuarantinedRow])
    /// Concurrent edits of `key` are kept side by side (`versions`) until one write resolves them.
    case concurrentEdit(namespace: String, key: [UInt8], versions: [ConflictVersion])
    /// The conflict of `key` was resolved, here or by a sibling.
    case conflictResolved(namespace: String, key: [UInt8])
    /// A response of `peer`'s held `count` operations the namespace's rules refuse (an edit or a
    /// delete by an account that is not the row's author); the merge dropped them, stored the rest.
    case operationsRefused(peer: DeviceID, namespace: String, count: Int)
    /// Fill-if-empty `fields` of `key` held different values here and in `peer`'s row; the merge
    /// kept the greater on every device and says so rather than settling it silently.
    case backfillConflict(peer: DeviceID, namespace: String, key: [UInt8], fields: [String])
    /// The gate accepted an envelope of a device this account certified that was not in the
    /// roster (a device that joined through another sibling): it is a sibling from now on.
    case siblingLearned(device: DeviceID)
    /// An accepted envelope's transfer message was dropped (another account, malformed).
    case transferDropped(TransferDropReason)
    /// A message of `bytes` bytes on the discovery subject was dropped for `reason` (silently, or
    /// with a sealed refusal for SJ112 to SJ115).
    case signInDropped(reason: SignInDropReason, bytes: Int)
    /// A sign-in request passed every check and was acknowledged: ask the user, then call
    /// `approve(_:)` or `reject(_:)`.
    case approvalRequested(PendingApproval)
    /// The user approved: the grant was sent and the new device's certificate recorded.
    case approved(id: ApprovalID, device: DeviceID, name: String)
    /// The user rejected: a rejection was sent, nothing was recorded.
    case approvalRejected(id: ApprovalID)
    /// Nobody decided before the requester's deadline: nothing was sent or recorded.
    case approvalExpired(id: ApprovalID)
    /// The prompt `id` was withdrawn before this device's user decided: another sibling decided,
    /// or the credential was spent or revoked meanwhile (then a refusal was sent).
    case approvalWithdrawn(id: ApprovalID, cause: ApprovalWithdrawal)
    /// Another member's notice taught this device's sign-in ledger `entries` entries.
    case signInLedgerLearned(entries: Int)
    /// This device's sign-in request is being published (`attempt` 1 is the first send), before
    /// any event its answer causes.
    case joinRequestSent(attempt: Int)
    /// A sibling of `family` acknowledged the request: "approve on your `family`".
    case joinAcknowledged(DeviceFamily)
    /// A message of `bytes` bytes on the reply subject was dropped for `reason`; nothing changed.
    case joinReplyDropped(reason: JoinReplyDropReason, bytes: Int)
    /// Approved and stored: this device is a member of the account from now on.
    case joinGranted(JoinedAccount)
    /// The wait ends in `remainingSeconds` (rounded up) unless a decision comes; `acknowledged`
    /// tells which wait runs: a sibling's user's decision, or the re-sends for any sibling.
    case joinWaiting(remainingSeconds: Int, acknowledged: Bool)
    /// A sibling's user refused this device; nothing was stored.
    case joinRejected
    /// A sibling refused without asking its user, for `reason`; nothing was stored.
    case joinRefused(SignInRefusal)
    /// The wait ended without a decision; nothing was stored.
    case joinTimedOut(acknowledged: Bool)
    /// A valid grant came but could not be stored (`error`); nothing was stored.
    case joinStoreFailed(ErrorReport)
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
