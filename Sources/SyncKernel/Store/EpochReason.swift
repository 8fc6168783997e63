/// Why a store took a fresh device epoch.
///
/// Invariant: each case is evidence that the store may not hold everything its device counted
/// before (or an explicit statement of it), never a guess from a wall clock.
public enum EpochReason: Sendable, Hashable {
    /// The store was opened by another device identity than the one that wrote it.
    case deviceChanged
    /// The database file is not the file the store recorded (device and inode differ): a copy,
    /// a restore to a new file, a move to another volume.
    case fileIdentityChanged
    /// The lease file beside the database holds another lease than the database, or the
    /// database holds none while the lease file does: the database was replaced, in place or
    /// not, by another copy.
    case leaseMismatch
    /// The database holds a lease and the lease file beside it is missing or unreadable: the
    /// database was moved or copied without it.
    case leaseMissing
    /// Lease and database agree, but the lease file counts more committed writes than the
    /// database: the database was overwritten in place by an older copy of itself.
    case writesMissing
    /// The store was declared restored (`KernelStore.markRestored()`, or
    /// `KernelStore.markRestored(storeAt:)` before it was opened).
    case markedRestored
    /// A sibling shipped a version counting this device's current dimension past what this
    /// store holds for that key: only this device counts there, so the store lost history.
    case peerEvidence
}
