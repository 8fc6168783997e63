import Foundation

/// Why a restore run failed.
///
/// Invariant: every case leaves the record as it was after its last saved step.
public enum RestoreFailure: Error, Sendable, Hashable {
    /// A required file failed to download (or the listing failed on resume).
    case cloud(CloudError)
    /// The app rejected a required group.
    case placementRejected(group: String?)
    /// The cloud now holds another backup than the pinned one.
    case sourceChanged
    /// The cloud holds no backup any more.
    case sourceUnavailable
    /// The backup is there but its marker is not ready.
    case notReady
    /// No cloud account.
    case notAvailable
    /// The cloud needs the user's consent.
    case needsConsent
    /// `resume` was called with no recorded plan.
    case noPlan
}

/// The result of a restore run.
///
/// Invariant: `.completed` only when every file of the plan is placed.
public enum RestoreOutcome: Sendable, Hashable {
    /// Every file is placed; stamped with the completion time.
    case completed(at: Date)
    /// Some files are still pending (optional failures, or files past their attempts).
    case partial(pending: Int)
    /// The run stopped.
    case failed(RestoreFailure)
}

/// Where one file of a recorded restore stands, as `RestoreEngine.statuses()` reports it.
///
/// Invariant: `lastError` is the error of the file's last failed download (a `.notFound` file is
/// missing from the cloud, a `.contentMismatch` one damaged there); `wasRejected` says the last
/// failure was the app's placement rejecting it.
public struct RestoreFileStatus: Sendable, Hashable {
    /// The code recorded for a placement rejection.
    static let rejectedCode = "placement_rejected"

    /// The plan's file.
    public var file: RestoreFile
    /// Whether it is placed.
    public var isDone: Bool
    /// How many downloads or placements of it failed.
    public var attempts: Int
    /// The error of its last failed download, if any.
    public var lastError: CloudError?
    /// Whether its last failure was a placement rejection.
    public var wasRejected: Bool
}
