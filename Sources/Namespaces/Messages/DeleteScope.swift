import Foundation

/// How far a delete reaches; a wider scope dominates.
public enum DeleteScope: UInt8, Sendable, Hashable, Comparable, CaseIterable {
    /// Hidden for this account.
    case me = 1
    /// Deleted for every participant.
    case everyone = 2

    public static func < (lhs: DeleteScope, rhs: DeleteScope) -> Bool { lhs.rawValue < rhs.rawValue }
}
