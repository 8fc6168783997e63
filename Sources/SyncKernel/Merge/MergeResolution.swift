
/// The outcome of `resolveMerge`: which side wins, and the vector the winner is stored under.
package struct MergeResolution: Sendable, Hashable {
    /// Which side won.
    package enum Winner: Sendable, Hashable {
        /// Keep the local side.
        case local
        /// Adopt the incoming side.
        case incoming
    }

    /// The winning side.
    package let winner: Winner
    /// The elementwise maximum of both vectors, whichever side won.
    package let vector: VersionVector
    /// How the local vector related to the incoming one.
    package let relation: CausalRelation
}

extension VersionVector {
    /// The one merge policy the kernel shares, for two sides: causality first, then add-wins,
    /// then a tie-break. It is `resolveMerge(versions:)` applied to one version per side (the
    /// side's content vector and whether it is live), so the pairwise and the stored outcomes
    /// can never disagree.
    ///
    /// - A version whose vector the other side's version dominates loses (a later write or delete
    ///   replaced it); equal vectors are one version.
    /// - Otherwise a live value beats a delete (add-wins); two deletes stay deleted (local kept);
    ///   between two live values `incomingWinsTie` decides, and must be deterministic and
    ///   clock-free so every device picks the same winner.
    /// The returned vector is always the merge of both sides' vectors.
    package static func resolveMerge(local: MergeCandidate, incoming: MergeCandidate,
                                    incomingWinsTie: () -> Bool) -> MergeResolution {
        let (localMark, incomingMark): ([UInt8], [UInt8]) = ([0], [1])
        let versions = [StoredVersion(vector: local.contentVector, row: local.isLive ? localMark : nil),
                        StoredVersion(vector: incoming.contentVector, row: incoming.isLive ? incomingMark : nil)]
        let set = resolveMerge(versions: versions) { challenger, _ in
            challenger == incomingMark ? incomingWinsTie() : !incomingWinsTie()
        }
        let winner: MergeResolution.Winner
        if let visible = set.visible {
            winner = visible.row == incomingMark ? .incoming : .local
        } else {
            let survivors = set.others
            winner = survivors.contains(StoredVersion(vector: local.contentVector, row: nil)) || survivors.isEmpty ? .local : .incoming
        }
        return MergeResolution(winner: winner, vector: local.vector.merged(with: incoming.vector),
                               relation: local.vector.relation(to: incoming.vector))
    }
}

extension VersionVector {
    /// `resolveMerge` over sets of versions: the form the store applies.
    ///
    /// Causality first: a version whose vector another version dominates is dropped (a later write
    /// or delete replaced it); versions with equal vectors are one version (two copies of one
    /// write keep one writer, `StoredVersion.keepingWriter(of:)`). Add-wins: if any
    /// surviving version is live, the key is live. Between surviving live versions, `wins` (the
    /// namespace's tie-break) picks the visible one, and the others are kept rather than
    /// discarded, so the result is the same whatever order versions arrive in. An error `wins`
    /// throws ends the merge and reaches the caller unchanged (a tie-break that cannot decide
    /// never reads as "does not win").
    static func resolveMerge<Failure: Error>(versions: [StoredVersion],
                                             wins: (_ challenger: [UInt8], _ holder: [UInt8]) throws(Failure) -> Bool)
        throws(Failure) -> VersionSetResolution {
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
            case (.some, .some):
                byVector[version.vector] = held.keepingWriter(of: version)
            default:
                break
            }
        }
        let unique = byVector.values.sorted { $0.vector.encoded().lexicographicallyPrecedes($1.vector.encoded()) }
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
        let others = survivors.filter { $0 != visible }
        return VersionSetResolution(visible: visible, others: others)
    }
}
