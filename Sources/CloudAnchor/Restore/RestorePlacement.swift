/// The files of one restore group, offered to the app together once they are local.
///
/// Invariant: every file of `files` is at its `localURL` when the group is offered.
public struct RestoreGroup: Sendable, Hashable {
    /// The app's group, or `nil` for a file that is its own group.
    public var name: String?
    /// The landed files of the group, in plan order.
    public var files: [RestoreFile]
}

/// The app's answer to a group offered for placement.
public enum PlacementDecision: Sendable, Hashable {
    /// The files are in place: they are done.
    case placed
    /// The files are not acceptable: one attempt counts on each and they are staged again next run.
    case rejected
}

/// Moves restored files where the app wants them.
///
/// Invariant: the engine offers each group once per run, after all its landed files are local.
///
/// ## Implementation requirements
/// - `place` decides for the whole group; it may move or read the files but must not delete
///   them when it answers `.rejected` (the engine does that).
/// - It is called again for the same group after a crash if its answer was not yet recorded, so
///   it must be idempotent.
public protocol RestorePlacement: Sendable {
    /// Places the group's files or rejects them.
    func place(_ group: RestoreGroup) async -> PlacementDecision
}

/// The default placement: files stay where they landed.
///
/// Invariant: always answers `.placed` and touches nothing.
public struct KeepWhereLanded: RestorePlacement {
    /// Creates the default placement.
    public init() {}

    /// Accepts the group as it landed.
    public func place(_ group: RestoreGroup) async -> PlacementDecision {
        .placed
    }
}
