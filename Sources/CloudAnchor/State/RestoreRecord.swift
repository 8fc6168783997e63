import Foundation

/// Where one file of a restore stands.
enum RestorePhase: String, Sendable {
    /// Not yet downloaded (or staged again after a rejection or a lost file).
    case pending
    /// Downloaded completely into the staging file, not yet moved to its local path.
    case fetched
    /// At its local path, not yet placed.
    case downloaded
    /// Placed: finished.
    case done
}

/// One file of the restore record.
struct RecordedFile: Sendable, Hashable {
    /// The position in the plan.
    var ordinal: Int
    /// The plan's file.
    var file: RestoreFile
    /// Where it stands.
    var phase: RestorePhase
    /// How many downloads or placements of it failed.
    var attempts: Int
    /// The code of the last failure (`CloudError.code`, or `placement_rejected`), if any.
    var lastError: String? = nil
}

/// The restore record the state file keeps between runs.
///
/// Invariant: `files` is in plan order; `completedAt` is set only when every file is done.
struct RestoreRecord: Sendable, Hashable {
    /// The pinned source.
    var source: SourceRef
    /// When `start` recorded the plan.
    var startedAt: Date
    /// When the restore completed, if it did.
    var completedAt: Date?
    /// The files.
    var files: [RecordedFile]
    /// The plan's staging folder.
    var stagingFolder: URL? = nil
}
