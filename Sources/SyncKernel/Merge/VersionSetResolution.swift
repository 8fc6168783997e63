/// The outcome of `resolveMerge` over a key's versions: the visible one and the rest.
struct VersionSetResolution {
    /// The live version readers see, or nil when every surviving version is a delete.
    let visible: StoredVersion?
    /// The other surviving versions (concurrent live siblings and deletes).
    let others: [StoredVersion]
}
