/// Applies one incoming row or tombstone under its namespace's rule, inside the caller's transaction.
///
/// Invariants: causal rows go through `VersionVector.resolveMerge` with both sides' content
/// vectors (so stale content never wins) and the namespace's tie-break (so every device picks
/// the same winner); the stored vector afterwards is the merge of both sides whatever won, and
/// the content vector is the winner's; an adopted row records its post-merge stamp so RowClock does not
/// re-bump it; every row write goes through the store's single `RowWriter`.
struct Merger {
    let driver: NamespaceDriver
    let writer: RowWriter
    let rowClock: RowClock

    private var books: Bookkeeping { writer.books }

    /// Merges a shipped row; returns whether the stored row changed.
    func merge(_ shipped: ShippedRow) throws(SyncKernelError) -> Bool {
        let incoming = try driver.inspect(shipped.row)
        guard !incoming.isDeviceDerived else { return false }
        let localBytes = try books.row(driver.name, incoming.key)
        let incomingVector = shipped.vector ?? VersionVector()
        let incomingSide = MergeCandidate(vector: incomingVector, isLive: true, contentVector: shipped.contentVector)
        if driver.isCausal, let localBytes, localBytes == incoming.bytes {
            return try mergeVectorOnly(key: incoming.key, incoming: incomingSide, stamp: incoming.stamp ?? 0)
        }
        let local = try localBytes.map { (bytes: [UInt8]) throws(SyncKernelError) in try driver.inspect(bytes) }
        guard driver.isCausal else {
            guard let bytes = try driver.mergeUntracked(local, incoming) else { return false }
            return try store(bytes)
        }
        let localVersion = try books.version(driver.name, incoming.key)
        let localSide: MergeCandidate
        if local != nil {
            localSide = MergeCandidate(vector: localVersion?.vector ?? VersionVector(), isLive: true,
                                       contentVector: localVersion?.contentVector)
        } else if let tombstone = try books.tombstone(driver.name, incoming.key) {
            localSide = MergeCandidate(vector: tombstone.vector, isLive: false)
        } else {
            let bytes = try driver.adopt(incoming, nil)
            let changed = try store(bytes)
            try rowClock.record(driver.name, key: incoming.key, vector: incomingVector,
                                contentVector: incomingSide.contentVector, syncedAt: incoming.stamp ?? 0)
            return changed
        }
        let resolution = VersionVector.resolveMerge(local: localSide, incoming: incomingSide,
                                                    incomingWinsTie: { tieBreak(incoming, local) })
        switch resolution.winner {
        case .incoming:
            let bytes = try driver.adopt(incoming, local)
            let changed = bytes == local?.bytes ? false : try store(bytes)
            if !localSide.isLive { try books.removeTombstone(driver.name, incoming.key) }
            let stamp = try driver.inspect(bytes).stamp ?? 0
            try rowClock.record(driver.name, key: incoming.key, vector: resolution.vector,
                                contentVector: incomingSide.contentVector, syncedAt: stamp)
            return changed
        case .local:
            if localSide.isLive, let local {
                try rowClock.record(driver.name, key: local.key, vector: resolution.vector, contentVector: localSide.contentVector,
                                    syncedAt: localVersion?.syncedAt ?? local.stamp ?? 0)
            } else {
                try books.putTombstone(driver.name, Tombstone(key: incoming.key, vector: resolution.vector))
            }
            return false
        }
    }

    /// Merges a shipped tombstone; returns whether a row was deleted or a new delete recorded.
    func merge(_ tombstone: Tombstone) throws(SyncKernelError) -> Bool {
        if try books.row(driver.name, tombstone.key) != nil {
            let version = try books.version(driver.name, tombstone.key)
            let resolution = VersionVector.resolveMerge(
                local: MergeCandidate(vector: version?.vector ?? VersionVector(), isLive: true, contentVector: version?.contentVector),
                incoming: MergeCandidate(vector: tombstone.vector, isLive: false),
                incomingWinsTie: { false })
            switch resolution.winner {
            case .incoming:
                try writer.remove(driver.name, key: tombstone.key)
                try books.removeVersion(driver.name, tombstone.key)
                try books.putTombstone(driver.name, Tombstone(key: tombstone.key, vector: resolution.vector))
                return true
            case .local:
                try rowClock.record(driver.name, key: tombstone.key, vector: resolution.vector,
                                    contentVector: version?.contentVector ?? resolution.vector, syncedAt: version?.syncedAt ?? 0)
                return false
            }
        }
        if let existing = try books.tombstone(driver.name, tombstone.key) {
            let merged = existing.vector.merged(with: tombstone.vector)
            if merged != existing.vector {
                try books.putTombstone(driver.name, Tombstone(key: tombstone.key, vector: merged))
            }
            return false
        }
        try books.putTombstone(driver.name, tombstone)
        return true
    }

    /// Identical rows: only the vectors can differ, and they merge elementwise (content vectors too,
    /// since either write could have produced the content).
    private func mergeVectorOnly(key: [UInt8], incoming: MergeCandidate, stamp: Int64) throws(SyncKernelError) -> Bool {
        guard let version = try books.version(driver.name, key) else {
            try rowClock.record(driver.name, key: key, vector: incoming.vector, contentVector: incoming.contentVector, syncedAt: stamp)
            return false
        }
        let merged = version.vector.merged(with: incoming.vector)
        let content = version.contentVector.merged(with: incoming.contentVector)
        if merged != version.vector || content != version.contentVector {
            try rowClock.record(driver.name, key: key, vector: merged, contentVector: content, syncedAt: version.syncedAt)
        }
        return false
    }

    /// The namespace's tie-break; a row that cannot be compared (never the case for rows that
    /// decoded) keeps the local side.
    private func tieBreak(_ incoming: InspectedRow, _ local: InspectedRow?) -> Bool {
        guard let local else { return true }
        return (try? driver.incomingWinsTie(incoming, local)) ?? false
    }

    private func store(_ bytes: [UInt8]) throws(SyncKernelError) -> Bool {
        let row = try driver.inspect(bytes)
        try writer.put(driver.name, row: row)
        return true
    }
}
