import Foundation

/// Why a sync or a probe did not run.
///
/// Invariant: an unavailable run wrote nothing to the cloud after the reason arose.
public enum UnavailableReason: Sendable, Hashable {
    /// No cloud account (availability gate).
    case noAccount
    /// The cloud needs the user's consent (availability gate).
    case needsConsent
    /// An empty snapshot over an existing backup this device never synced: restore it first.
    case restorePending
    /// The run would delete more than the shrink guard allows.
    case shrinkSuspected(deletes: Int, known: Int)
    /// A write hold is set.
    case writeHeld
    /// Another writer holds the storage's writer lease (or took it over from this run).
    case remoteBusy(owner: String, until: Date?)
}

/// What one sync run did.
///
/// Invariant: every path in `uploaded` and `deleted` was written or removed in the cloud and
/// recorded in the state file by this run.
public struct SyncReport: Sendable, Hashable {
    /// Uploaded paths, in upload order (the marker last when it was uploaded).
    public var uploaded: [String] = []
    /// Deleted paths.
    public var deleted: [String] = []
    /// Deletes that failed; they are retried next run.
    public var failedDeletes: [String] = []
    /// Files that changed while they were read (before or during their put): not recorded as
    /// backed up, so the next run uploads them again.
    public var changedWhileReading: [String] = []
}

/// The result of `SyncEngine.sync`.
///
/// Invariant: `.synced` means the cloud now holds the snapshot, except failed deletes and the
/// files listed in `changedWhileReading`.
public enum SyncOutcome: Sendable, Hashable {
    /// The run finished.
    case synced(SyncReport)
    /// The run did not run or stopped before a write.
    case unavailable(UnavailableReason)
}
