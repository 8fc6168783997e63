import Foundation

/// What the state file knows about one uploaded file.
///
/// Invariant: `hash` is set only for a file this engine uploaded (or saw complete after a crash)
/// and whose remote copy has kept `size` and `tag` since; a remote copy whose size or tag changed
/// behind the engine's back is demoted to an adopted entry (`hash == nil`), so it uploads again.
struct StoredEntry: Sendable, Hashable {
    /// The size the file had when it was uploaded (or the remote size when adopted).
    var size: Int64
    /// The content hash it was uploaded with; `nil` for size-compared or adopted files.
    var hash: String?
    /// The remote content tag of the copy the entry describes, when the storage has tags.
    var tag: String? = nil

    /// The entry as it stands after the storage listed `file` at its path: unchanged while size
    /// and tag match (taking the listed tag when none was known), else adopted from the listing.
    func verified(by file: RemoteFile) -> StoredEntry {
        if file.size != size { return StoredEntry(size: file.size, hash: nil, tag: file.contentTag) }
        guard let tag else { return StoredEntry(size: size, hash: hash, tag: file.contentTag) }
        if let listed = file.contentTag, listed != tag { return StoredEntry(size: file.size, hash: nil, tag: listed) }
        return self
    }
}

/// A put the engine was about to make, saved before the put so a crash after it can be recognised.
struct PutIntent: Sendable, Hashable {
    /// The path being written.
    var path: String
    /// The size being written.
    var size: Int64
    /// The hash being written, when the entry is hash-compared.
    var hash: String?
    /// The remote content tag before the put, when the file existed and the storage has tags.
    var tagBefore: String?
    /// Whether the file existed remotely before the put.
    var existedBefore: Bool

    /// Whether `remote` shows that this put completed: the size matches and the file is new or
    /// its content tag changed.
    func completed(by remote: RemoteFile?) -> Bool {
        guard let remote, remote.size == size else { return false }
        if !existedBefore { return true }
        guard let tagBefore, let tagNow = remote.contentTag else { return false }
        return tagNow != tagBefore
    }
}

/// The sync state as the state file holds it: a cache of the remote, plus the run's bookkeeping.
///
/// Invariant: `entries` never holds the same path twice and `identity` is the identity the
/// entries belong to.
struct SyncState: Sendable, Hashable {
    /// The identity the entries belong to ("" before any is known).
    var identity: String = ""
    /// When the last sync finished; `nil` when this identity was never synced.
    var syncedAt: Date?
    /// Whether a put happened since the marker was last uploaded.
    var markerDirty: Bool = false
    /// The known remote files by path (compared byte for byte).
    var entries: [ExactPath: StoredEntry] = [:]
    /// The put in flight when the last run stopped, if any.
    var intent: PutIntent?
}

/// A persisted change checkpoint and the listing it stands for.
///
/// Invariant: `files` is the storage's listing as of `token`, for the storage identity `identity`.
struct ListingCheckpoint: Sendable, Hashable {
    /// The identity the checkpoint belongs to (a checkpoint of another account is discarded).
    var identity: String
    /// The storage's token.
    var token: String
    /// The listing as of the token.
    var files: [ExactPath: RemoteFile]
}
