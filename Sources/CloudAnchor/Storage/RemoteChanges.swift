/// What a storage's listing changed since a checkpoint (`CloudStorage.changes(since:)`).
///
/// Invariant: when `isComplete`, `changed` is every file the storage holds and `deleted` is
/// empty; otherwise `changed` and `deleted` are exactly what changed since the checkpoint given.
/// `checkpoint` is the token to pass next time, `nil` when the storage has no change feed.
public struct RemoteChanges: Sendable, Hashable {
    /// Whether `changed` is the whole listing.
    public var isComplete: Bool
    /// Files new or changed (every file when complete).
    public var changed: [RemoteFile]
    /// Paths removed since the checkpoint.
    public var deleted: [String]
    /// The token that names this point of the feed.
    public var checkpoint: String?

    /// Creates an answer.
    public init(isComplete: Bool, changed: [RemoteFile], deleted: [String] = [], checkpoint: String? = nil) {
        self.isComplete = isComplete
        self.changed = changed
        self.deleted = deleted
        self.checkpoint = checkpoint
    }
}
