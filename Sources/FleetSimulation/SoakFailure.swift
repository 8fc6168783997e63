/// One way a soak fleet failed its checks, with what was seen.
///
/// Invariant: `kind` is one of the checks in `Kind` and `detail` names devices, namespaces and
/// key prefixes only, never row contents, so a failure line is safe to paste anywhere.
public struct SoakFailure: Sendable, Hashable {
    /// The check that failed.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The devices' roots still differed when the settle time ran out.
        case notConverged = "not_converged"
        /// A device lacks a row the oracle holds: an acknowledged write lost (or wrongly deleted).
        case writeLost = "write_lost"
        /// A device holds a row the oracle deleted: a delete undone.
        case deleteUndone = "delete_undone"
        /// A device holds a row no write made.
        case unexpectedRow = "unexpected_row"
        /// A device holds a row in another version than the oracle's.
        case versionDiffers = "version_differs"
        /// The storm guard tripped (`ReplicaEvent.stormSuspected`) in a fleet that converges.
        case storm
        /// A device could not merge a response (`applyFailed`) or read its store for a digest (`storeFailed`).
        case applyFailed = "apply_failed"
        /// A device's persisted structure disagrees with its rows, or equal rows gave other roots.
        case structure
        /// A write, a store open or a read the harness needed threw.
        case error
        /// A device quarantined rows, told apart versions counted alike, or was shown by a sibling
        /// to have lost history: nothing in a soak damages or rolls back a store, so each is a bug.
        case damage
    }

    /// The check that failed.
    public let kind: Kind
    /// What was seen: devices, namespaces, counts and key prefixes.
    public let detail: String

    /// Records a failure of `kind`.
    public init(kind: Kind, detail: String) {
        self.kind = kind
        self.detail = detail
    }
}
