import Foundation
import SQLiteStore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The embedded default storage: a local directory standing in for a cloud drive.
///
/// Invariant: writes go to a temporary file `.cloudanchor-tmp-<uuid>` in the root folder and are
/// renamed over the target, so a reader sees the old or the new content and a crash leaves no
/// torn file (a killed run's temporary files are removed by `removeOrphans()`); the backend's
/// own files are the root's names starting with `.cloudanchor-`, never listed and never
/// addressable, while such names below the root are ordinary files. Temporary names are short
/// and never derived from the target's name. A missing root folder reads as `CloudError.offline`
/// (the drive is not mounted). Every call's file work runs on `executor`, a thread of its own,
/// and the caller suspends meanwhile: no file call blocks an engine's actor or the cooperative
/// pool.
public struct FolderStorage: CloudStorage {
    /// The folder standing in for the drive.
    public let root: URL
    /// Where the file calls run.
    public let executor: SerialThreadExecutor
    private let leases = LeaseDescriptors()

    private static let internalPrefix = ".cloudanchor-"
    private static let temporaryPrefix = internalPrefix + "tmp-"

    /// Creates a storage over `root`, which must exist before the first call; its file calls run
    /// on `executor` (by default one of its own, whose thread is named `synckernel.cloud-folder`).
    public init(root: URL, executor: SerialThreadExecutor = SerialThreadExecutor(name: "synckernel.cloud-folder")) {
        self.root = root
        self.executor = executor
    }

    /// Runs `body` on `executor`; the caller suspends meanwhile.
    private func onExecutor<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await executor.run(body)
    }

    /// Lists every regular file below the root, sorted by path.
    public func list() async throws -> [RemoteFile] {
        try await onExecutor {
            try requireRoot()
            var files: [RemoteFile] = []
            try collect(relative: [], into: &files)
            return files.sorted { $0.path.bytesPrecede($1.path) }
        }
    }

    /// The drive's identity: a random id kept in the folder, created on first use.
    public func identityKey() async throws -> String? {
        try await onExecutor { try makeIdentityKey() }
    }

    private func makeIdentityKey() throws -> String? {
        try requireRoot()
        let url = root.appendingPathComponent(Self.internalPrefix + "identity")
        if let text = try? String(contentsOf: url, encoding: .utf8), !text.isEmpty {
            return text
        }
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        if descriptor >= 0 {
            let id = "folder:" + UUID().uuidString.lowercased()
            let written = id.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, id.utf8.count) }
            let synced = fsync(descriptor)
            close(descriptor)
            guard written == id.utf8.count, synced == 0 else { throw Self.cloudError(errno: errno) }
            return id
        }
        guard errno == EEXIST, let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw Self.cloudError(errno: errno)
        }
        return text
    }

    /// Reads a whole file.
    public func readBytes(_ path: String) async throws -> Data {
        try await onExecutor {
            let url = try locate(path)
            do {
                return try Data(contentsOf: url)
            } catch {
                throw Self.cloudError(error)
            }
        }
    }

    /// Stores `data` as `path` through a temporary file and a rename.
    public func writeBytes(_ path: String, _ data: Data) async throws -> RemoteFile {
        try await onExecutor { try replace(path) { temporary in try data.write(to: temporary) } }
    }

    /// Stores the local regular file at `localURL` as `path` through a temporary copy and a rename;
    /// anything but a readable regular file (a link, a FIFO) is `.localIO`.
    public func writeFile(_ path: String, from localURL: URL) async throws -> RemoteFile {
        try await onExecutor {
            guard FileStamp.of(path: localURL.path)?.isRegularFile == true,
                  FileManager.default.isReadableFile(atPath: localURL.path) else { throw CloudError.localIO }
            return try replace(path) { temporary in
                try FileManager.default.copyItem(at: localURL, to: temporary)
            }
        }
    }

    /// Copies `path` to `localURL`, replacing what is there.
    public func downloadFile(_ path: String, to localURL: URL) async throws {
        try await onExecutor { try copy(path, to: localURL) }
    }

    private func copy(_ path: String, to localURL: URL) throws {
        let url = try locate(path)
        guard FileManager.default.fileExists(atPath: url.path) else { throw CloudError.notFound }
        if FileManager.default.fileExists(atPath: localURL.path) {
            do {
                try FileManager.default.removeItem(at: localURL)
            } catch {
                throw CloudError.localIO
            }
        }
        do {
            try FileManager.default.copyItem(at: url, to: localURL)
        } catch {
            throw Self.cloudError(error)
        }
    }

    /// Removes `path`; an absent path succeeds.
    public func delete(_ path: String) async throws {
        try await onExecutor {
            let url = try locate(path)
            if unlink(url.path) != 0, errno != ENOENT {
                throw Self.cloudError(errno: errno)
            }
        }
    }

    /// Does nothing: the folder is local.
    public func prefetch(_ paths: [String]) async {}

    /// Claims the writer slot with an exclusive `flock` on `.cloudanchor-lease`, held until
    /// `releaseLease` or the process's end (a killed holder never blocks its successor); the
    /// file also holds the `LeaseRecord`, so a refused claimant can say who holds it.
    public func acquireLease(_ claim: LeaseClaim) async throws -> LeaseAnswer {
        try await onExecutor { try lock(claim) }
    }

    private func lock(_ claim: LeaseClaim) throws -> LeaseAnswer {
        try requireRoot()
        let path = root.appendingPathComponent(Self.internalPrefix + "lease").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.cloudError(errno: errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = Self.readRecord(descriptor)
            close(descriptor)
            guard code == EWOULDBLOCK else { throw Self.cloudError(errno: code) }
            return .held(owner: holder?.owner ?? "another writer", until: holder?.expiresAt)
        }
        guard Self.writeRecord(LeaseRecord(claim), to: descriptor) else {
            let code = errno
            close(descriptor)
            throw Self.cloudError(errno: code)
        }
        leases.insert(descriptor, for: claim.token)
        return .granted(RemoteLease(owner: claim.owner, token: claim.token,
                                    expiresAt: claim.now.addingTimeInterval(claim.duration)))
    }

    /// Rewrites the record with the new expiry while the lock is held.
    public func renewLease(_ lease: RemoteLease, for claim: LeaseClaim) async throws -> LeaseAnswer {
        try await onExecutor {
            guard let descriptor = leases.descriptor(for: lease.token) else { return .held(owner: "another writer", until: nil) }
            guard Self.writeRecord(LeaseRecord(claim), to: descriptor) else { throw Self.cloudError(errno: errno) }
            return .granted(RemoteLease(owner: claim.owner, token: claim.token,
                                        expiresAt: claim.now.addingTimeInterval(claim.duration)))
        }
    }

    /// Drops the lock.
    public func releaseLease(_ lease: RemoteLease) async {
        let leases = leases
        await executor.run { if let descriptor = leases.remove(lease.token) { close(descriptor) } }
    }

    private static func readRecord(_ descriptor: Int32) -> LeaseRecord? {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        return count > 0 ? LeaseRecord.decode(Data(buffer.prefix(count))) : nil
    }

    private static func writeRecord(_ record: LeaseRecord, to descriptor: Int32) -> Bool {
        let bytes = [UInt8](record.encoded)
        return ftruncate(descriptor, 0) == 0 && pwrite(descriptor, bytes, bytes.count, 0) == bytes.count
    }

    /// Removes the temporary files of writes a killed process left in the root folder; returns
    /// their names. Call it only while holding the writer lease (a live writer's file would go).
    public func removeOrphans() async throws -> [String] {
        try await onExecutor { try removeTemporaries() }
    }

    private func removeTemporaries() throws -> [String] {
        try requireRoot()
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: root.path)
        } catch {
            throw Self.cloudError(error)
        }
        var removed: [String] = []
        for name in names.sorted() where name.hasPrefix(Self.temporaryPrefix) {
            if unlink(root.appendingPathComponent(name).path) == 0 { removed.append(name) }
        }
        return removed
    }

    /// Maps a file-system error to a `CloudError`: out of space or quota to `.storageFull`, a
    /// missing file to `.notFound`, a permission refusal to `.authRevoked`, a vanished mount to
    /// `.offline`, anything else to `.transport`.
    public static func cloudError(_ error: any Error) -> CloudError {
        if let error = error as? CloudError { return error }
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return cloudError(errno: Int32(underlying.code))
        }
        if nsError.domain == NSPOSIXErrorDomain { return cloudError(errno: Int32(nsError.code)) }
        guard nsError.domain == NSCocoaErrorDomain else { return .transport }
        switch nsError.code {
        case CocoaError.fileWriteOutOfSpace.rawValue, 4354: return .storageFull
        case CocoaError.fileNoSuchFile.rawValue, CocoaError.fileReadNoSuchFile.rawValue: return .notFound
        case CocoaError.fileReadNoPermission.rawValue, CocoaError.fileWriteNoPermission.rawValue,
             CocoaError.fileWriteVolumeReadOnly.rawValue: return .authRevoked
        default: return .transport
        }
    }

    /// Maps a POSIX error number to a `CloudError` (see `cloudError(_:)`).
    public static func cloudError(errno code: Int32) -> CloudError {
        switch code {
        case ENOSPC, EDQUOT: .storageFull
        case ENOENT, ENOTDIR: .notFound
        case EACCES, EPERM, EROFS: .authRevoked
        case ENOTCONN, EHOSTDOWN, EHOSTUNREACH, ENETDOWN, ENETUNREACH, ESTALE, ENXIO, ENODEV: .offline
        default: .transport
        }
    }

    private func requireRoot() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CloudError.offline
        }
    }

    private func locate(_ path: String) throws -> URL {
        let components = try RemotePath.components(path)
        try requireRoot()
        guard let first = components.first, !first.hasPrefix(Self.internalPrefix) else { throw CloudError.invalidPath }
        return components.reduce(root) { $0.appendingPathComponent($1) }
    }

    private func replace(_ path: String, _ fill: (URL) throws -> Void) throws -> RemoteFile {
        let url = try locate(path)
        let folder = url.deletingLastPathComponent()
        let temporary = root.appendingPathComponent(Self.temporaryPrefix + UUID().uuidString.lowercased())
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try fill(temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw Self.cloudError(error)
        }
        guard rename(temporary.path, url.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw Self.cloudError(errno: code)
        }
        return try describe(url, path: path)
    }

    private func collect(relative: [String], into files: inout [RemoteFile]) throws {
        let folder = relative.reduce(root) { $0.appendingPathComponent($1) }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw Self.cloudError(error)
        }
        for name in names.sorted(by: { $0.bytesPrecede($1) }) where !(relative.isEmpty && name.hasPrefix(Self.internalPrefix)) {
            let url = folder.appendingPathComponent(name)
            var info = stat()
            guard lstat(url.path, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                try collect(relative: relative + [name], into: &files)
            } else if (info.st_mode & S_IFMT) == S_IFREG {
                files.append(Self.remoteFile((relative + [name]).joined(separator: "/"), info))
            }
        }
    }

    private func describe(_ url: URL, path: String) throws -> RemoteFile {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { throw Self.cloudError(errno: errno) }
        return Self.remoteFile(path, info)
    }

    private static func remoteFile(_ path: String, _ info: stat) -> RemoteFile {
        let tag = "\(info.st_ino)-\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)-\(info.st_size)"
        return RemoteFile(path: path, size: Int64(info.st_size), remoteId: nil, contentTag: tag)
    }
}

/// The descriptors holding a folder's lease locks, by lease token.
///
/// Invariant: a descriptor is in the table exactly while its lock is held by this process.
private final class LeaseDescriptors: Sendable {
    private let table = Mutex<[String: Int32]>([:])

    func insert(_ descriptor: Int32, for token: String) {
        table.withLock { $0[token] = descriptor }
    }

    func descriptor(for token: String) -> Int32? {
        table.withLock { $0[token] }
    }

    func remove(_ token: String) -> Int32? {
        table.withLock { $0.removeValue(forKey: token) }
    }
}
