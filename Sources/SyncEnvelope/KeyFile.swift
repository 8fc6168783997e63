#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SyncKernel

/// Reading and writing the account's and devices' key files, owner-only.
///
/// Invariants: a file is created with mode 0600 (set explicitly, whatever the umask) and whole
/// or not at all: written and synced under a temporary name in the same directory, then linked
/// to its name, which must not exist yet (a key is never overwritten), and the directory synced;
/// a directory it creates has mode 0700; `replace` is for the one record file that changes (the
/// sign-in ledger, no key): written whole the same way, then renamed over the old one, so a
/// reader sees the old file or the new one, never a part. A file is read only when it is a regular file (not
/// followed through a symbolic link) with no permission bit beyond 0600 (otherwise
/// `keyFileExposed`, with nothing read) and at most `maxBytes` long. Errors name the failure,
/// never the bytes.
package enum KeyFile {
    /// The longest key file read.
    package static let maxBytes = 4_096
    /// The permission bits a key file may have.
    private static let ownerOnly: mode_t = 0o600

    /// Creates the file `path` holding `bytes`; `keyFileUnavailable` when it exists or cannot be
    /// written.
    package static func create(_ bytes: [UInt8], at path: String) throws(SyncKernelError) {
        guard access(path, F_OK) != 0 else { throw SyncKernelError(.keyFileUnavailable, "a key file of this name exists") }
        let staging = path + ".creating-\(getpid())"
        unlink(staging)
        let descriptor = open(staging, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, ownerOnly)
        guard descriptor >= 0 else { throw SyncKernelError(.keyFileUnavailable, "the key file cannot be created") }
        var written = fchmod(descriptor, ownerOnly) == 0
        var offset = 0
        while written, offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { offset += count } else if count < 0, errno == EINTR { continue } else { written = false }
        }
        written = written && fsync(descriptor) == 0
        close(descriptor)
        defer { unlink(staging) }
        guard written, link(staging, path) == 0 else {
            throw SyncKernelError(.keyFileUnavailable, "the key file cannot be written")
        }
        syncDirectory(of: path)
    }

    /// Replaces the file `path` (or creates it) with `bytes`, whole or not at all;
    /// `keyFileUnavailable` when it cannot be written (the old file then stays as it was).
    package static func replace(_ bytes: [UInt8], at path: String) throws(SyncKernelError) {
        let staging = path + ".replacing-\(getpid())"
        unlink(staging)
        try create(bytes, at: staging)
        guard rename(staging, path) == 0 else {
            unlink(staging)
            throw SyncKernelError(.keyFileUnavailable, "the file cannot be replaced")
        }
        syncDirectory(of: path)
    }

    /// The bytes of the key file `path`.
    package static func read(_ path: String) throws(SyncKernelError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ELOOP { throw SyncKernelError(.keyFileExposed, "a key file is a symbolic link") }
            throw SyncKernelError(.keyFileUnavailable, "the key file cannot be opened")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw SyncKernelError(.keyFileUnavailable, "the key file cannot be examined") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw SyncKernelError(.keyFileExposed, "a key file is not a regular file") }
        guard info.st_mode & 0o777 & ~ownerOnly == 0 else {
            throw SyncKernelError(.keyFileExposed, "a key file others may read or write (mode beyond 0600)")
        }
        guard info.st_size <= maxBytes else { throw SyncKernelError(.malformedKeyFile, "a key file too long") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeMutableBytes { readBytes(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { offset += count } else if count < 0, errno == EINTR { continue } else { break }
        }
        guard offset == bytes.count else { throw SyncKernelError(.keyFileUnavailable, "the key file cannot be read") }
        return bytes
    }

    /// Creates the directory `path` with mode 0700 when it does not exist; `keyFileUnavailable`
    /// when it cannot be made or something else is there.
    package static func makeDirectory(_ path: String) throws(SyncKernelError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else { throw SyncKernelError(.keyFileUnavailable, "not a directory") }
            return
        }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw SyncKernelError(.keyFileUnavailable, "the directory cannot be created")
        }
        syncDirectory(of: path)
    }

    /// The names in `directory` ending in `suffix`, sorted, without the suffix; `keyFileUnavailable`
    /// when the directory cannot be read.
    package static func names(in directory: String, suffix: String) throws(SyncKernelError) -> [String] {
        guard let stream = opendir(directory) else { throw SyncKernelError(.keyFileUnavailable, "the directory cannot be read") }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(suffix), name.count > suffix.count { names.append(String(name.dropLast(suffix.count))) }
        }
        return names.sorted()
    }

    /// The system's `read(2)` (the name `read` is this type's own).
    private static func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
        #else
        Darwin.read(descriptor, buffer, count)
        #endif
    }

    /// Syncs the directory holding `path`, so a name just linked there survives a power loss.
    private static func syncDirectory(of path: String) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let descriptor = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}
