import SyncKernel

/// Why a namespace failed the kit, with everything needed to reproduce and fix it.
///
/// Invariant: `description` names the namespace, the check, the field when one is to blame, and
/// the seed that replays the failure; `leaves` holds the two replicas' differing leaves decoded
/// item by item when the failure is a divergence.
public struct ConformanceFailure: Error, CustomStringConvertible {
    /// The kit's checks, in the order `run()` makes them and a report lists them (fix the first
    /// first: later checks often fail because of it).
    public enum Check: String, Sendable, CaseIterable {
        /// The subject's declarations match the namespace's.
        case declarations = "declarations"
        /// Every excluded field is really excluded.
        case excludedFieldExcluded = "excluded field is excluded"
        /// Rewriting a received row leaves its leaf alone.
        case receiveRewriteExcluded = "receive rewrite is excluded"
        /// One row, one encoding.
        case canonicalEncoding = "canonical encoding"
        /// Distinct values of a hashed field give distinct leaves.
        case leafInjective = "leaf is injective"
        /// Every hashed field converges when two replicas hold different values of it.
        case hashedFieldMerges = "hashed field merges"
        /// Merge laws: commutative, associative, idempotent, vectors dominate.
        case mergeLaws = "merge laws"
        /// A local edit survives the device's own merge and a retraction shows at once.
        case localEdits = "local edits"
        /// Offloading keeps the leaf and restoring brings the content back.
        case residency = "residency"
        /// Local passes are idempotent, agree across devices and resurrect nothing.
        case localPassIdempotent = "local pass is idempotent"
        /// A fleet converges with nothing lost and nothing resurrected.
        case fleetConvergence = "fleet convergence"
    }

    /// The namespace's name.
    public let namespace: String
    /// The check that failed.
    public let check: Check
    /// The field to blame, when there is one.
    public let field: String?
    /// The seed that replays the failure.
    public let seed: UInt64
    /// What went wrong.
    public let detail: String
    /// The two replicas' leaves, decoded item by item, where they differ.
    public let leaves: [String]

    public var description: String {
        var text = "namespace \(namespace) failed '\(check.rawValue)'"
        if let field { text += " on field '\(field)'" }
        text += " (seed \(seed)): \(detail)"
        if !leaves.isEmpty { text += "\n" + leaves.joined(separator: "\n") }
        return text
    }
}
