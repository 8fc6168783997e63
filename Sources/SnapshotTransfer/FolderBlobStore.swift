import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SyncEnvelope
import SyncKernel

/// The embedded blob store: each blob one file in a folder, kept for a time to live.
///
/// A blob is the file `<hex id>.blob`: a 16-byte store header (magic "SKFB", version 1, three zero
/// bytes, the time it was stored in milliseconds since 1970, big-endian) and the blob's bytes.
///
/// Invariants:
/// - `put` writes a temporary file (`<hex id>.partial`, created exclusively with mode 0600),
///   syncs it, renames it into place and syncs the folder, so a blob is either whole under its
///   name or absent; a failed put removes its temporary file.
/// - A blob older than `timeToLive` at `clock` is never opened: `open` removes it and throws
///   `blobNotFound`, like a blob never stored or deleted; `removeExpired` removes every expired
///   blob and every temporary file older than the time to live. `put` sweeps first.
/// - Ids are 32 hex digits, so no id names a file outside the folder. The folder is made with
///   mode 0700.
/// - `maxBlobBytes` bounds a put (the blob is removed and `limitExceeded` thrown past it).
public struct FolderBlobStore: BlobStore {
    /// The folder.
    public let directory: String
    /// How long a blob is kept.
    public let timeToLive: Duration
    /// The clock expiry is judged by.
    public let clock: any WallClock
    /// The largest blob `put` stores.
    public let maxBlobBytes: Int64

    /// The default time to live: 24 hours.
    public static let defaultTimeToLive = Duration.seconds(24 * 3_600)
    /// Bytes of the store's header in front of each blob.
    static let headerBytes = 16
    /// The store header's magic.
    private static let magic: [UInt8] = Array("SKFB".utf8)
    /// Bytes read per piece.
    private static let pieceBytes = 1 << 20

    /// A store in `directory` (created with mode 0700 when missing), keeping blobs for
    /// `timeToLive` at `clock`; throws `blobStoreFailed` when the folder cannot be made.
    public init(directory: String, timeToLive: Duration = FolderBlobStore.defaultTimeToLive,
                clock: any WallClock = SystemWallClock(), maxBlobBytes: Int64 = 64 << 30) throws {
        guard timeToLive > .zero, maxBlobBytes > 0 else { throw SyncKernelError(.limitExceeded, "a time to live or size bound") }
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw SnapshotTransferError(.blobStoreFailed, "cannot make the blob folder (errno \(errno))")
        }
        var info = stat()
        guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw SnapshotTransferError(.blobStoreFailed, "the blob folder is not a folder")
        }
        self.directory = directory
        self.timeToLive = timeToLive
        self.clock = clock
        self.maxBlobBytes = maxBlobBytes
    }

    /// The path of a blob's file.
    func path(of id: BlobID) -> String {
        directory + "/" + id.hex + ".blob"
    }

    /// Stores everything `source` yields as one blob file under a fresh id (whole or not at all).
    public nonisolated(nonsending) func put<Source: ByteSource>(_ source: inout Source) async throws -> BlobID {
        try sweep()
        let id = BlobID.random()
        let partial = directory + "/" + id.hex + ".partial"
        let file = Glibc.open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw SnapshotTransferError(.blobStoreFailed, "cannot create a blob file (errno \(errno))") }
        do {
            var header = FolderBlobStore.magic + [1, 0, 0, 0]
            header.appendBigEndian(UInt64(bitPattern: clock.millisecondsSince1970), width: 8)
            try FolderBlobStore.write(header, to: file)
            var written: Int64 = 0
            while let piece = try source.next() {
                written += Int64(piece.count)
                guard written <= maxBlobBytes else { throw SyncKernelError(.limitExceeded, "a blob above the store's bound") }
                try FolderBlobStore.write(piece, to: file)
            }
            guard fsync(file) == 0 else { throw SnapshotTransferError(.blobStoreFailed, "cannot sync a blob (errno \(errno))") }
            close(file)
            guard rename(partial, path(of: id)) == 0 else {
                throw SnapshotTransferError(.blobStoreFailed, "cannot publish a blob (errno \(errno))")
            }
        } catch {
            close(file)
            unlink(partial)
            throw error
        }
        syncDirectory()
        return id
    }

    /// Opens blob `id`, removing it instead when it expired (`blobNotFound`).
    public nonisolated(nonsending) func open(_ id: BlobID) async throws -> any BlobReader {
        let file = Glibc.open(path(of: id), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard file >= 0 else {
            if errno == ENOENT { throw SnapshotTransferError(.blobNotFound, "no such blob") }
            throw SnapshotTransferError(.blobStoreFailed, "cannot open a blob (errno \(errno))")
        }
        do {
            var info = stat()
            guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size >= FolderBlobStore.headerBytes else {
                throw SnapshotTransferError(.blobStoreFailed, "a blob file that is not a blob")
            }
            let storedAt = try FolderBlobStore.storedAt(header: FolderBlobStore.read(FolderBlobStore.headerBytes, from: file))
            guard !isExpired(storedAt: storedAt) else {
                close(file)
                unlink(path(of: id))
                throw SnapshotTransferError(.blobNotFound, "the blob expired")
            }
            return FolderBlobReader(file: file, size: Int64(info.st_size) - Int64(FolderBlobStore.headerBytes),
                                    pieceBytes: FolderBlobStore.pieceBytes)
        } catch {
            if (error as? SnapshotTransferError)?.code != .blobNotFound { close(file) }
            throw error
        }
    }

    /// Removes blob `id`'s file, if any.
    public nonisolated(nonsending) func delete(_ id: BlobID) async throws {
        guard unlink(path(of: id)) == 0 || errno == ENOENT else {
            throw SnapshotTransferError(.blobStoreFailed, "cannot delete a blob (errno \(errno))")
        }
    }

    /// Removes every expired blob and stale temporary file; returns the blobs removed.
    @discardableResult
    public nonisolated(nonsending) func removeExpired() async throws -> Int {
        try sweep()
    }

    /// Removes every expired blob and stale temporary file; returns how many blobs it removed.
    @discardableResult
    private func sweep() throws -> Int {
        guard let folder = opendir(directory) else { throw SnapshotTransferError(.blobStoreFailed, "cannot list the blob folder (errno \(errno))") }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".blob") || name.hasSuffix(".partial") { names.append(name) }
        }
        closedir(folder)
        var removed = 0
        for name in names.sorted() where try isExpired(file: directory + "/" + name, partial: name.hasSuffix(".partial")) {
            if unlink(directory + "/" + name) == 0, name.hasSuffix(".blob") { removed += 1 }
        }
        return removed
    }

    /// Whether a file of the folder expired: a blob by its header's time, a temporary file (or a
    /// blob whose header does not read) by its modification time.
    private func isExpired(file path: String, partial: Bool) throws -> Bool {
        if !partial {
            let file = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            if file >= 0 {
                defer { close(file) }
                if let header = try? FolderBlobStore.read(FolderBlobStore.headerBytes, from: file),
                   let storedAt = try? FolderBlobStore.storedAt(header: header) {
                    return isExpired(storedAt: storedAt)
                }
            }
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        return isExpired(storedAt: Int64(info.st_mtim.tv_sec) * 1_000)
    }

    /// Whether a blob stored at `storedAt` (milliseconds since 1970) expired.
    private func isExpired(storedAt: Int64) -> Bool {
        let ttl = timeToLive.components
        let ttlMillis = ttl.seconds * 1_000 + ttl.attoseconds / 1_000_000_000_000_000
        return clock.millisecondsSince1970 - storedAt >= ttlMillis
    }

    /// Syncs the folder, so a published blob's name survives a crash (best effort).
    private func syncDirectory() {
        let folder = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return }
        fsync(folder)
        close(folder)
    }

    /// The storing time a store header names.
    private static func storedAt(header: [UInt8]) throws -> Int64 {
        guard Array(header.prefix(4)) == magic, header[4] == 1, header[5] == 0, header[6] == 0, header[7] == 0 else {
            throw SnapshotTransferError(.blobStoreFailed, "a blob file without the store's header")
        }
        return Int64(bitPattern: header[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    /// Writes all of `bytes` to `file`.
    static func write(_ bytes: [UInt8], to file: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(file, $0.baseAddress, $0.count) }
            guard count > 0 else {
                if count < 0, errno == EINTR { continue }
                throw SnapshotTransferError(.blobStoreFailed, "cannot write a blob (errno \(errno))")
            }
            offset += count
        }
    }

    /// Reads exactly `count` bytes from `file`; `blobStoreFailed` when it ends first.
    static func read(_ count: Int, from file: Int32) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let got = bytes[offset...].withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress, $0.count) }
            guard got > 0 else {
                if got < 0, errno == EINTR { continue }
                throw SnapshotTransferError(.blobStoreFailed, "a blob file ends early")
            }
            offset += got
        }
        return bytes
    }
}
