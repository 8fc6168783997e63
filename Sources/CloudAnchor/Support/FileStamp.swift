#if canImport(Glibc)
import Glibc
#endif

/// What `lstat`/`fstat` says about a file, to tell whether it changed between two looks.
///
/// Invariant: two stamps are equal only when size, modification and change times (to the
/// nanosecond), inode, device and kind are all equal; any write, truncation, rename over the
/// path or change of kind changes at least one of them on the file systems the engine supports.
public struct FileStamp: Sendable, Hashable {
    /// The size in bytes.
    public var size: Int64
    /// Modification time, seconds and nanoseconds.
    public var modified: [Int]
    /// Status change time, seconds and nanoseconds.
    public var changed: [Int]
    /// The inode number.
    public var inode: UInt64
    /// The device number.
    public var device: UInt64
    /// The file type bits (`st_mode & S_IFMT`).
    public var kind: UInt32

    /// The stamp of a `stat` result.
    init(_ info: stat) {
        size = Int64(info.st_size)
        modified = [Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)]
        changed = [Int(info.st_ctim.tv_sec), Int(info.st_ctim.tv_nsec)]
        inode = UInt64(info.st_ino)
        device = UInt64(info.st_dev)
        kind = UInt32(info.st_mode) & UInt32(S_IFMT)
    }

    /// The stamp of the entry at `path` itself (a link is not followed), or `nil` when it cannot be read.
    public static func of(path: String) -> FileStamp? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return FileStamp(info)
    }

    /// The stamp of an open file, or `nil` when it cannot be read.
    static func of(descriptor: Int32) -> FileStamp? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return FileStamp(info)
    }

    /// Whether this is a regular file.
    public var isRegularFile: Bool {
        kind == UInt32(S_IFREG)
    }
}
