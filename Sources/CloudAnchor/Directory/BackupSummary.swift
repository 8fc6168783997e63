import Foundation

/// What a directory backup did.
///
/// Invariant: paths are the user's (relative to the source folder, without the storage prefix).
public struct BackupSummary: Sendable, Hashable {
    /// Regular files in the snapshot.
    public var files = 0
    /// Links in the snapshot.
    public var links = 0
    /// Folders in the snapshot.
    public var folders = 0
    /// Files uploaded.
    public var uploaded: [String] = []
    /// Files deleted from the storage.
    public var deleted: [String] = []
    /// Deletes that failed; retried next run.
    public var failedDeletes: [String] = []
    /// Entries the policy skipped (FIFOs, sockets, devices, names that are not UTF-8).
    public var skipped: [DirectoryScan.Skipped] = []
    /// Files that changed while they were read in every try; not backed up by this run.
    public var changing: [String] = []
}
