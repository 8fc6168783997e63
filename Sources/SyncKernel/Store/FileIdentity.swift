import Foundation

/// Which file a path names: its volume and inode (`st_dev`, `st_ino`).
///
/// Invariant: two different files alive at once never share an identity; SQLite writes a
/// database in place, so a store's file keeps its identity across opens, and a copy, a restore
/// through a new file or a move to another volume gets another one.
struct FileIdentity: Hashable {
    /// The volume (`st_dev`).
    let volume: UInt64
    /// The inode (`st_ino`).
    let inode: UInt64

    /// The identity of the file at `path`, nil when it cannot be read.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        volume = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// An identity read back from the store.
    init(volume: UInt64, inode: UInt64) {
        self.volume = volume
        self.inode = inode
    }
}
