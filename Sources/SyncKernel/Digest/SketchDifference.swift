/// The symmetric difference a sketch decoder recovers between a remote and a local set.
///
/// Invariants: as produced by `SketchDecoder`, each list is sorted by key, then tag, and holds
/// no item twice, and no item appears in both lists.
package struct SketchDifference: Sendable, Equatable {
    /// Items in the remote set only.
    package var remoteOnly: [SketchItem]
    /// Items in the local set only.
    package var localOnly: [SketchItem]

    /// A difference with the given sides.
    ///
    /// Invariant: stores the lists as given.
    package init(remoteOnly: [SketchItem], localOnly: [SketchItem]) {
        self.remoteOnly = remoteOnly
        self.localOnly = localOnly
    }
}
