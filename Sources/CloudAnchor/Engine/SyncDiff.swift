/// What one sync run uploads and deletes.
///
/// Invariant: `uploads` holds size-compared entries first, then hash-compared ones, each in
/// snapshot order; `deletes` is sorted by path bytes and never holds the marker or an entry the
/// snapshot declares (`.absent` included). Paths are compared byte for byte.
struct SyncDiff: Sendable {
    /// The entries to upload, in upload order.
    var uploads: [SyncEntry] = []
    /// The paths to delete.
    var deletes: [String] = []
    /// Whether the marker uploads.
    var uploadsMarker = false

    init(snapshot: SyncSnapshot, state: SyncState, remote: [ExactPath: RemoteFile], markerPath: String,
         uploadsChangedMarker: Bool) {
        let marker = ExactPath(markerPath)
        let entries = snapshot.entries.filter { ExactPath($0.path) != marker }
        var sized: [SyncEntry] = []
        var hashed: [SyncEntry] = []
        for entry in entries {
            if case .absent = entry.source { continue }
            let stored = state.entries[ExactPath(entry.path)]
            if let hash = entry.hash {
                if stored?.hash != hash { hashed.append(entry) }
            } else if let stored {
                if stored.size != entry.size || remote[ExactPath(entry.path)]?.size != stored.size { sized.append(entry) }
            } else {
                sized.append(entry)
            }
        }
        uploads = sized + hashed
        let declared = Set(entries.map { ExactPath($0.path) })
        deletes = state.entries.keys.filter { $0 != marker && !declared.contains($0) }.sorted().map(\.string)
        let markerChanged = uploadsChangedMarker
            && state.entries[marker]?.hash != ContentHash.sha256(snapshot.marker)
        uploadsMarker = !uploads.isEmpty || remote[marker] == nil || state.markerDirty || markerChanged
    }
}
