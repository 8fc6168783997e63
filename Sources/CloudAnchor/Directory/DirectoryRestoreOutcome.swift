import Foundation
import Glibc

/// The result of a directory restore.
///
/// Invariant: `.completed` only when every folder, file and link of the manifest is in place
/// and every file was verified by content hash; `.conflicts` and `.damagedManifest` wrote nothing.
public enum DirectoryRestoreOutcome: Sendable, Hashable {
    /// Everything is in place.
    case completed(RestoreSummary)
    /// These entries are not in place; everything else is.
    case incomplete([RestoreProblem])
    /// The target differs from the backup at these paths; nothing was written.
    case conflicts([RestoreConflict])
    /// The manifest fails its own check; nothing was written.
    case damagedManifest
    /// The storage holds no complete backup (or no restore was recorded, for `resume`).
    case nothingToRestore
    /// `resume`: the storage holds another backup than the one the restore started from.
    case sourceChanged
    /// The availability gate stopped the restore.
    case unavailable(UnavailableReason)

    /// For `.incomplete`, what its report says about the entries not in place; nil otherwise.
    public var shortfall: RestoreShortfall? {
        guard case .incomplete(let problems) = self else { return nil }
        return RestoreShortfall(problems)
    }
}
