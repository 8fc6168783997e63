extension VersionVector {
    /// Tells apart versions of one key that carry one vector but different content, before the
    /// merge reduces them (`resolveMerge(versions:wins:)` keeps one version per vector).
    ///
    /// Two writes counted alike (a store that lost its history counting a device's dimension to a
    /// value the fleet already holds) are two edits, not one: deduplicating them would drop one
    /// silently. Each version's base is its vector without its own collision mark
    /// (`DeviceID.collision(key:content:)` of its content: the leaf from `content`, no bytes for a
    /// delete). Where versions of one base hold two or more contents, each gets its mark (count 1)
    /// added: the marked versions are concurrent, so the merge keeps every one (the visible one
    /// by the tie-break, the others beside it), and a later write that sees them all dominates
    /// them all. The marks are named by content, so every device that meets the same versions
    /// derives the same vectors, and a marked version dominates its unmarked copy. Returns the
    /// versions (marked where they collided) and whether this told apart versions no version
    /// given was marked for yet (an unmarked copy of a version already marked is no news).
    static func separatingCollisions(_ versions: [StoredVersion], key: [UInt8],
                                     content: ([UInt8]) -> [UInt8]) -> (versions: [StoredVersion], separated: Bool) {
        // One version has nothing to be told apart from.
        guard versions.count > 1 else { return (versions, false) }
        let marks = versions.map { version in DeviceID.collision(key: key, content: version.row.map(content) ?? []) }
        let bases = zip(versions, marks).map { version, mark in
            version.vector[mark] > 0 ? VersionVector(version.vector.counters.filter { $0.key != mark }) : version.vector
        }
        var contents: [VersionVector: Set<DeviceID>] = [:]
        for (base, mark) in zip(bases, marks) { contents[base, default: []].insert(mark) }
        let held = Set(versions.map(\.vector))
        var separated = false
        var out: [StoredVersion] = []
        for (index, version) in versions.enumerated() {
            let mark = marks[index]
            guard (contents[bases[index]]?.count ?? 0) > 1, version.vector[mark] == 0 else {
                out.append(version)
                continue
            }
            let marked = version.vector.merged(with: VersionVector([mark: 1]))
            if !held.contains(marked) { separated = true }
            out.append(StoredVersion(vector: marked, row: version.row, writer: version.writer))
        }
        return (out, separated)
    }
}
