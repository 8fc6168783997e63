
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
    /// - For equal or concurrent vectors, content the other side had already seen (its content
    ///   vector is within the other side's vector) is stale and loses to the other side. This is
    ///   causality at the level of content: a version that won an earlier tie-break cannot then beat
    ///   its own successor, and a delete made after seeing a value is not undone by add-wins.
    /// - Otherwise a live value beats a tombstone (add-wins); two
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
            let localStale = [.dominated, .equal].contains(local.contentVector.relation(to: incoming.vector))
            let incomingStale = [.dominated, .equal].contains(incoming.contentVector.relation(to: local.vector))
            if localStale != incomingStale {
                winner = localStale ? .incoming : .local
                break
            }
            switch (local.isLive, incoming.isLive) {
            case (true, false), (false, false): winner = .local
            case (false, true): winner = .incoming
            case (true, true): winner = incomingWinsTie() ? .incoming : .local
            }
        }
        return MergeResolution(winner: winner, vector: local.vector.merged(with: incoming.vector), relation: relation)
    }
}

extension VersionVector {
    /// `resolveMerge` over sets of versions: the form the store applies.
    ///
    /// Causality first: a version whose vector another version dominates is dropped (a later write
    /// or delete replaced it); versions with equal vectors are one version. Add-wins: if any
    /// surviving version is live, the key is live. Between surviving live versions, `wins` (the
    /// namespace's tie-break) picks the visible one, and the others are kept rather than
    /// discarded, so the result is the same whatever order versions arrive in.
    static func resolveMerge(versions: [StoredVersion],
                             wins: (_ challenger: [UInt8], _ holder: [UInt8]) throws(SyncKernelError) -> Bool)
        throws(SyncKernelError) -> VersionSetResolution {
        var byVector: [VersionVector: StoredVersion] = [:]
        for version in versions {
            guard let held = byVector[version.vector] else {
                byVector[version.vector] = version
                continue
            }
            switch (held.row, version.row) {
            case (nil, .some):
                byVector[version.vector] = version
            case (.some(let holder), .some(let challenger)) where challenger != holder:
                if try wins(challenger, holder) { byVector[version.vector] = version }
            default:
                break
            }
        }
        let unique = Array(byVector.values)
        let survivors = unique.filter { version in
            !unique.contains { version.vector.relation(to: $0.vector) == .dominated }
        }
        var visible: StoredVersion?
        for version in survivors {
            guard let row = version.row else { continue }
            guard let best = visible?.row else {
                visible = version
                continue
            }
            if try wins(row, best) { visible = version }
        }
        let others = survivors.filter { $0 != visible }.sorted { $0.vector.encoded().lexicographicallyPrecedes($1.vector.encoded()) }
        return VersionSetResolution(visible: visible, others: others)
    }
}
