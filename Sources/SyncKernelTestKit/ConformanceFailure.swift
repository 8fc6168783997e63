import SyncKernel

/// Why a namespace failed the kit, with everything needed to reproduce and fix it.
///
/// Invariant: `description` names the namespace, the check, the field when one is to blame, and
/// the seed that replays the failure; `leaves` holds the two replicas' differing leaves decoded
/// item by item when the failure is a divergence.
public struct ConformanceFailure: Error, CustomStringConvertible {
    /// The kit's checks.
    public enum Check: String, Sendable {
        /// Every hashed field converges when two replicas hold different values of it.
        case hashedFieldMerges = "hashed field merges"
        /// Rewriting a received row leaves its leaf alone.
        case receiveRewriteExcluded = "receive rewrite is excluded"
        /// Every excluded field is really excluded.
        case excludedFieldExcluded = "excluded field is excluded"
        /// Merge laws: commutative, associative, idempotent, vectors dominate.
        case mergeLaws = "merge laws"
        /// One row, one encoding.
        case canonicalEncoding = "canonical encoding"
        /// A fleet converges with nothing lost and nothing resurrected.
        case fleetConvergence = "fleet convergence"
        /// Local passes are idempotent.
        case localPassIdempotent = "local pass is idempotent"
        /// The subject's declarations match the namespace's.
        case declarations = "declarations"
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
