/// One side of a causal merge: its version vector and whether it is a live value or a tombstone.
public struct MergeCandidate: Sendable, Hashable {
    /// The side's version vector.
    public let vector: VersionVector
    /// True for a live value, false for a tombstone.
    public let isLive: Bool

    /// Creates a candidate.
    public init(vector: VersionVector, isLive: Bool) {
        self.vector = vector
        self.isLive = isLive
    }
}

/// The outcome of `resolveMerge`: which side wins, and the vector the winner is stored under.
public struct MergeResolution: Sendable, Hashable {
    /// Which side won.
    public enum Winner: Sendable, Hashable {
        /// Keep the local side.
        case local
        /// Adopt the incoming side.
        case incoming
    }

    /// The winning side.
    public let winner: Winner
    /// The elementwise maximum of both vectors, whichever side won.
    public let vector: VersionVector
    /// How the local vector related to the incoming one.
    public let relation: CausalRelation
}

extension VersionVector {
    /// The one merge policy the kernel shares: causality first, then add-wins, then a tie-break.
    ///
    /// - A dominating side wins outright; a dominated side loses.
    /// - For equal or concurrent vectors, a live value beats a tombstone (add-wins); two
    ///   tombstones stay deleted (local kept); between two live values `incomingWinsTie` decides,
    ///   and must be deterministic and clock-free so every device picks the same winner.
    /// The returned vector is always the merge of both sides.
    public static func resolveMerge(local: MergeCandidate, incoming: MergeCandidate,
                                    incomingWinsTie: () -> Bool) -> MergeResolution {
        let relation = local.vector.relation(to: incoming.vector)
        let winner: MergeResolution.Winner
        switch relation {
        case .dominates:
            winner = .local
        case .dominated:
            winner = .incoming
        case .equal, .concurrent:
            switch (local.isLive, incoming.isLive) {
            case (true, false), (false, false): winner = .local
            case (false, true): winner = .incoming
            case (true, true): winner = incomingWinsTie() ? .incoming : .local
            }
        }
        return MergeResolution(winner: winner, vector: local.vector.merged(with: incoming.vector), relation: relation)
    }
}
