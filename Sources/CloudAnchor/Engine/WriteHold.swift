/// A hold on all cloud writes, persisted in the sync state.
///
/// Invariant: while the hold is not `.none`, `SyncEngine.sync` writes nothing; the library
/// never sets or clears it on its own, and an identity reset keeps it.
public enum WriteHold: Sendable, Hashable {
    /// Writes are allowed.
    case none
    /// Writes are held for the given reason (for example a restore in progress).
    case held(reason: String)
}
