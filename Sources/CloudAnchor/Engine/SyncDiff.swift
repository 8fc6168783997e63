/// What one run must upload and delete, computed from the snapshot, the state and the listing.
///
/// Invariant: `uploads` holds size-compared entries first, then hash-compared ones, each in
/// snapshot order; `deletes` is sorted and never holds the marker or an entry the snapshot
/// declares (`.absent` included).
struct SyncDiff: Sendable {
    /// The entries to upload, in upload order.
    var uploads: [SyncEntry] = []
    /// The paths to delete.
    var deletes: [String] = []
    /// Whether the marker uploads.
    var uploadsMarker = false

    init(snapshot: SyncSnapshot, state: SyncState, remote: [String: RemoteFile], markerPath: String) {
        let entries = snapshot.entries.filter { $0.path != markerPath }
        var sized: [SyncEntry] = []
        var hashed: [SyncEntry] = []
        for entry in entries {
            if case .absent = entry.source { continue }
            let stored = state.entries[entry.path]
            if let hash = entry.hash {
                if stored?.hash != hash { hashed.append(entry) }
            } else if let stored {
                if stored.size != entry.size || remote[entry.path]?.size != stored.size { sized.append(entry) }
            } else {
                sized.append(entry)
            }
        }
        uploads = sized + hashed
        let declared = Set(entries.map(\.path))
        deletes = state.entries.keys.filter { $0 != markerPath && !declared.contains($0) }.sorted()
        uploadsMarker = !uploads.isEmpty || remote[markerPath] == nil || state.markerDirty
    }
}
