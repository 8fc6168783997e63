import Foundation

/// One file a restore brings back.
///
/// Invariant: `remotePath` is a valid relative path; a file with no `group` is a group of its own;
/// a file with a `sha256` is placed only once its downloaded content has that hash (and `size`).
public struct RestoreFile: Sendable, Hashable {
    /// The path in the cloud storage.
    public var remotePath: String
    /// Where the file lands locally.
    public var localURL: URL
    /// Whether the restore fails when this file cannot be brought back.
    public var required: Bool
    /// The app's opaque group; the files of a group are placed together.
    public var group: String?
    /// The remote size when known; a staged download of exactly this size is reused after a crash.
    public var size: Int64?
    /// The SHA-256 the content must have (lowercase hex), when known: a download that does not
    /// match fails with `CloudError.contentMismatch` and is never placed.
    public var sha256: String?

    /// Creates a restore file.
    public init(remotePath: String, localURL: URL, required: Bool, group: String? = nil, size: Int64? = nil,
                sha256: String? = nil) {
        self.remotePath = remotePath
        self.localURL = localURL
        self.required = required
        self.group = group
        self.size = size
        self.sha256 = sha256
    }
}

/// What a restore brings back and from which backup.
///
/// Invariant: the plan is recorded as given (file order is plan order) and pinned to `source`.
public struct RestorePlan: Sendable, Hashable {
    /// The backup the files come from, as a probe found it.
    public var source: SourceRef
    /// The files, in plan order.
    public var files: [RestoreFile]
    /// The folder downloads are staged in (as `<ordinal>`), on the same file system as the
    /// files; `nil` stages each beside its file as `.cloudanchor-part-<ordinal>`. Either way a
    /// staging name is short and never derived from the file's own name, so any name the file
    /// system accepts can be restored.
    public var stagingFolder: URL?

    /// Creates a plan.
    public init(source: SourceRef, files: [RestoreFile], stagingFolder: URL? = nil) {
        self.source = source
        self.files = files
        self.stagingFolder = stagingFolder
    }
}
