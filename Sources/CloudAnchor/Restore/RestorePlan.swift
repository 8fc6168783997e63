import Foundation

/// One file a restore brings back.
///
/// Invariant: `remotePath` is a valid relative path; a file with no `group` is a group of its own.
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

    /// Creates a restore file.
    public init(remotePath: String, localURL: URL, required: Bool, group: String? = nil, size: Int64? = nil) {
        self.remotePath = remotePath
        self.localURL = localURL
        self.required = required
        self.group = group
        self.size = size
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

    /// Creates a plan.
    public init(source: SourceRef, files: [RestoreFile]) {
        self.source = source
        self.files = files
    }
}
