import SyncKernel

/// Where a run's differences go: half of the inserts on each side, and a third of the
/// differences as edits of shared rows, split across both sides (or, one-sided, all of them on A).
///
/// Invariants: `insertsOnA + insertsOnB + editsOnA.count + editsOnB.count` equals the requested
/// differences (edits are capped at the shared rows there are); no shared row is edited twice,
/// so every edit is causally after the load and wins on both sides without a conflict.
struct DifferencePlan {
    /// Rows only A inserts.
    let insertsOnA: Int
    /// Rows only B inserts.
    let insertsOnB: Int
    /// Shared rows A edits, by load position.
    let editsOnA: [Int]
    /// Shared rows B edits, by load position.
    let editsOnB: [Int]

    /// Spreads `differences` over `rows` shared rows with the source's seeded positions.
    init(differences: Int, rows: Int, source: RowSource, oneSided: Bool = false) {
        let edits = min(differences / 3, rows)
        let inserts = differences - edits
        insertsOnA = oneSided ? inserts : (inserts + 1) / 2
        insertsOnB = oneSided ? 0 : inserts / 2
        var random = source.generator(.editPositions, 0)
        var chosen: Set<Int> = []
        var positions: [Int] = []
        while positions.count < edits {
            let position = Int(random.next() % UInt64(rows))
            if chosen.insert(position).inserted { positions.append(position) }
        }
        editsOnA = oneSided ? positions : Array(positions.prefix((edits + 1) / 2))
        editsOnB = oneSided ? [] : Array(positions.dropFirst((edits + 1) / 2))
    }

    /// The keys whose leaves differ between the two sides after the plan is applied, each once,
    /// read from the plan itself (no store is scanned).
    func differingKeys(_ source: RowSource) -> [[UInt8]] {
        let inserted = (0..<insertsOnA).map { source.row(.insertedOnA, $0, stamp: RowSource.diffStamp).id }
            + (0..<insertsOnB).map { source.row(.insertedOnB, $0, stamp: RowSource.diffStamp).id }
        let edited = (editsOnA + editsOnB).map { source.row(.shared, $0, stamp: RowSource.loadStamp).id }
        return Array(Set(inserted + edited)).sorted(by: [UInt8].keyPrecedes)
    }
}
