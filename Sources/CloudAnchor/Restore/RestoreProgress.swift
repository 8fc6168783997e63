/// How far a restore is, in files and groups.
///
/// Invariant: a new report is sent only when one of its counts changed.
public struct RestoreProgress: Sendable, Hashable {
    /// Files placed.
    public var filesDone: Int
    /// Files local but not yet placed.
    public var filesDownloaded: Int
    /// Files in the plan.
    public var filesTotal: Int
    /// Groups whose files are all placed.
    public var groupsDone: Int
    /// Groups in the plan.
    public var groupsTotal: Int
}
