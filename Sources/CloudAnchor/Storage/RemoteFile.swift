/// One file as the cloud storage lists it.
///
/// Invariant: `path` is relative, uses `/` between plain components and never starts or ends
/// with `/`; `size` is the stored byte count.
public struct RemoteFile: Sendable, Hashable {
    /// The relative path of the file in the storage.
    public var path: String
    /// The stored size in bytes.
    public var size: Int64
    /// A storage-side id that stays the same while the file is overwritten, when the storage has one.
    public var remoteId: String?
    /// An opaque tag that changes whenever the content is written (an ETag, an inode and mtime),
    /// when the storage has one.
    public var contentTag: String?

    /// Creates a listing entry.
    public init(path: String, size: Int64, remoteId: String? = nil, contentTag: String? = nil) {
        self.path = path
        self.size = size
        self.remoteId = remoteId
        self.contentTag = contentTag
    }
}
