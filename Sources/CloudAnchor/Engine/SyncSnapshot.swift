import Foundation

/// Where the content of a snapshot entry comes from.
///
/// Invariant: `.absent` entries are never uploaded and never deleted.
public enum SyncSource: Sendable, Hashable {
    /// The content of a local file.
    case file(URL)
    /// Bytes held in memory.
    case bytes(Data)
    /// Not available locally on purpose: keep whatever the cloud holds.
    case absent
}

/// One file of a snapshot.
///
/// Invariant: an entry with `hash == nil` is size-compared, otherwise hash-compared; an entry
/// with a `stamp` is recorded as uploaded only when its file still has that stamp after the put.
public struct SyncEntry: Sendable, Hashable {
    /// The relative path in the cloud.
    public var path: String
    /// The local size in bytes.
    public var size: Int64
    /// The content hash for hash-compared entries, `nil` for size-compared ones.
    public var hash: String?
    /// Where the content comes from.
    public var source: SyncSource
    /// For a `.file` source: the stamp the file had when `hash` was computed. The engine compares
    /// it before and after the put, so a file that changed while it was sent is never recorded as
    /// backed up (it is reported in `SyncReport.changedWhileReading`).
    public var stamp: FileStamp?

    /// Creates an entry.
    public init(path: String, size: Int64, hash: String? = nil, source: SyncSource, stamp: FileStamp? = nil) {
        self.path = path
        self.size = size
        self.hash = hash
        self.source = source
        self.stamp = stamp
    }

    /// An entry for in-memory bytes, hash-compared when `hashed`.
    public static func bytes(_ path: String, _ data: Data, hashed: Bool = true) -> SyncEntry {
        SyncEntry(path: path, size: Int64(data.count), hash: hashed ? ContentHash.sha256(data) : nil, source: .bytes(data))
    }

    /// An entry that is deliberately absent locally and must be kept remotely.
    public static func absent(_ path: String) -> SyncEntry {
        SyncEntry(path: path, size: 0, source: .absent)
    }
}

/// What the app wants the cloud to hold after a sync.
///
/// Invariant: entries are uploaded in snapshot order within their kind; `marker` is the bytes of
/// the marker file, which is never listed among the entries.
public struct SyncSnapshot: Sendable, Hashable {
    /// The files, in snapshot order.
    public var entries: [SyncEntry]
    /// The marker's bytes: the app's description of the backup.
    public var marker: Data
    /// Whether the app's model is empty (pass it when scaffold files are always listed).
    public var isEmpty: Bool
    /// Lifts the shrink guard for this run only.
    public var allowShrink: Bool

    /// Creates a snapshot; `isEmpty` defaults to having no entries.
    public init(entries: [SyncEntry], marker: Data, isEmpty: Bool? = nil, allowShrink: Bool = false) {
        self.entries = entries
        self.marker = marker
        self.isEmpty = isEmpty ?? entries.isEmpty
        self.allowShrink = allowShrink
    }
}
