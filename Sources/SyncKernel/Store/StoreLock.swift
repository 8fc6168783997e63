#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The exclusive claim one process holds on a store's database file while it has the store open
/// for writing: an `flock` on the file itself, through a descriptor of its own.
///
/// Invariants: the lock belongs to the file (its inode), not to the path, so every path that
/// reaches the file (the same path, a symbolic link, a hard link, a relative path) meets the same
/// lock; it is taken before anything is written to the store and released only after the
/// database connection closed (closing another descriptor of a file drops the POSIX locks
/// SQLite holds on it, so the lock's descriptor stays open as long as SQLite's); the operating
/// system drops it when the holder exits, however it exits, so a crashed holder never blocks
/// the next start; it never waits: a second writer is refused at once with `storeInUse`, naming
/// the holder's process id when `/proc/locks` tells it. `flock` locks are independent of the
/// POSIX byte-range locks SQLite uses, so readers (read-only connections, in this process or
/// another) are never blocked by it. Not `Sendable`: the store that took it owns it.
final class StoreLock {
    private var descriptor: Int32

    /// Takes the lock on the file at `path` (which must exist). Throws `storeInUse` when another
    /// open store holds it (this process's or another's), `sqlite` when the file cannot be opened.
    init(path: String) throws(SyncKernelError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SyncKernelError(.sqlite, "the store's file cannot be opened to lock it") }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let refused = errno == EWOULDBLOCK
            let holder = refused ? Self.holder(of: descriptor) : nil
            close(descriptor)
            guard refused else { throw SyncKernelError(.sqlite, "the store's file cannot be locked") }
            throw SyncKernelError(.storeInUse, holder.map { "held by process \($0)" } ?? "held by another open store")
        }
        self.descriptor = descriptor
    }

    deinit {
        release()
    }

    /// Releases the lock (closing its descriptor); later calls do nothing.
    func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    /// The process holding an `flock` on the file open as `descriptor`, from `/proc/locks`; nil
    /// where the system does not tell (no `/proc`, a file system whose device numbers differ).
    private static func holder(of descriptor: Int32) -> Int32? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, let table = readProcLocks() else { return nil }
        let device = UInt64(info.st_dev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        let inode = UInt64(info.st_ino)
        var onInode: [Int32] = []
        for line in table.split(separator: "\n") {
            // "1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234567 0 EOF"
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE", let pid = Int32(fields[4]) else { continue }
            let place = fields[5].split(separator: ":")
            guard place.count == 3, let lineInode = UInt64(place[2]) else { continue }
            guard lineInode == inode else { continue }
            if UInt64(place[0], radix: 16) == major, UInt64(place[1], radix: 16) == minor { return pid }
            onInode.append(pid)
        }
        return onInode.count == 1 ? onInode[0] : nil
    }

    /// The text of `/proc/locks`, at most 1 MiB of it; nil when it cannot be read.
    private static func readProcLocks() -> String? {
        let descriptor = open("/proc/locks", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while bytes.count < 1 << 20 {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
