import Foundation

/// The result of `DirectoryBackup.run`.
///
/// Invariant: `.completed` means every file, link and folder of the snapshot is in the storage
/// as its manifest says; every other case names what is missing and nothing in it is reported as
/// backed up.
public enum BackupOutcome: Sendable, Hashable {
    /// Every entry of the snapshot is in place (skipped entries are listed in the summary).
    case completed(BackupSummary)
    /// The files in `summary.changing` changed while they were read; everything else is in place.
    case incomplete(BackupSummary)
    /// These files or folders cannot be read; nothing was written.
    case unreadable([FileProblem])
    /// A gate or guard stopped the run before any write.
    case stopped(UnavailableReason)
}
