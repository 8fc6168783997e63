import Foundation
import Synchronization
import XCTest
@testable import CloudAnchor

/// The backends the directory backup and restore tests run on.
enum DirectoryBackend: String, CaseIterable {
    /// A `folder:` remote.
    case folder
    /// A WebDAV remote: `rclone serve webdav`, started for the test and stopped when it ends.
    case webdav
}

/// One entry of a local tree, as the tests read it back (independently of `DirectoryScan`).
enum TreeEntry: Hashable, CustomStringConvertible {
    case file(Data)
    case link(String)
    case folder

    var description: String {
        switch self {
        case .file(let data): "file(\(data.count) bytes)"
        case .link(let target): "link(\(target))"
        case .folder: "folder"
        }
    }
}

/// A source folder, a remote on one backend and a restore target, all below a fresh temporary
/// folder, with the backup and restore state files beside them.
struct DirectoryRig: CustomStringConvertible {
    let backend: DirectoryBackend
    let directory: URL
    let source: URL
    let target: URL
    let storage: any CloudStorage
    /// The remote folder, for the folder backend.
    let remoteFolder: URL?
    /// The server, for the WebDAV backend.
    let server: WebDAVServer?

    var description: String { backend.rawValue }
    var backupStatePath: String { directory.appendingPathComponent("backup-state.sqlite").path }
    var restoreStatePath: String { directory.appendingPathComponent("restore-state.sqlite").path }

    /// A fresh rig on `backend`; a WebDAV one starts its server for `testCase`.
    static func make(_ backend: DirectoryBackend, for testCase: XCTestCase) async throws -> DirectoryRig {
        let directory = try testCase.temporaryDirectory()
        let source = directory.appendingPathComponent("source")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        switch backend {
        case .folder:
            let remote = directory.appendingPathComponent("remote")
            try FileManager.default.createDirectory(at: remote, withIntermediateDirectories: true)
            return DirectoryRig(backend: backend, directory: directory, source: source,
                                target: directory.appendingPathComponent("target"),
                                storage: FolderStorage(root: remote), remoteFolder: remote, server: nil)
        case .webdav:
            let server = try await WebDAVServer.running(for: testCase)
            return DirectoryRig(backend: backend, directory: directory, source: source,
                                target: directory.appendingPathComponent("target"),
                                storage: server.storage(collection: "backup-\(UUID().uuidString)"), remoteFolder: nil,
                                server: server)
        }
    }

    /// Backs the source up (a fresh process as far as the engine can tell).
    func backup(allowShrink: Bool = false, from source: URL? = nil, through storage: (any CloudStorage)? = nil,
                statePath: String? = nil) async throws -> BackupOutcome {
        let state = try StateStore(path: statePath ?? backupStatePath)
        return try await DirectoryBackup(source: source ?? self.source, storage: storage ?? self.storage, state: state)
            .run(allowShrink: allowShrink)
    }

    /// A backup that must complete; returns its summary.
    func backupCompleted(allowShrink: Bool = false, file: StaticString = #filePath, line: UInt = #line) async throws
        -> BackupSummary {
        let outcome = try await backup(allowShrink: allowShrink)
        guard case .completed(let summary) = outcome else {
            XCTFail("\(self): expected a completed backup, got \(outcome)", file: file, line: line)
            return BackupSummary()
        }
        return summary
    }

    /// Starts a restore into the target.
    func restore(overwrite: Bool = false, into target: URL? = nil, through storage: (any CloudStorage)? = nil,
                 statePath: String? = nil) async throws -> DirectoryRestoreOutcome {
        try await restorer(overwrite: overwrite, into: target, through: storage, statePath: statePath).start()
    }

    /// Resumes the recorded restore.
    func resume(overwrite: Bool = false, through storage: (any CloudStorage)? = nil, statePath: String? = nil) async throws
        -> DirectoryRestoreOutcome {
        try await restorer(overwrite: overwrite, into: nil, through: storage, statePath: statePath).resume()
    }

    private func restorer(overwrite: Bool, into target: URL?, through storage: (any CloudStorage)?,
                          statePath: String?) throws -> DirectoryRestore {
        DirectoryRestore(storage: storage ?? self.storage, state: try StateStore(path: statePath ?? restoreStatePath),
                         target: target ?? self.target, overwrite: overwrite)
    }

    // MARK: The remote, as another program would touch it

    /// The remote file's bytes.
    func remoteBytes(_ path: String) async throws -> Data {
        try await storage.readBytes(path)
    }

    /// Replaces a remote file's content: in place for a folder (same inode, as a bit flip on the
    /// drive would), through the server for WebDAV.
    func replaceRemote(_ path: String, with data: Data) async throws {
        if let remoteFolder {
            let handle = try FileHandle(forWritingTo: remoteFolder.appendingPathComponent(path))
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: data)
            try handle.close()
        } else {
            _ = try await storage.writeBytes(path, data)
        }
    }

    /// Flips one bit of a remote file, keeping its size.
    func flipRemote(_ path: String, at offset: Int = 0) async throws {
        var data = try await remoteBytes(path)
        data[offset] ^= 0x01
        try await replaceRemote(path, with: data)
    }

    /// Deletes a remote file.
    func deleteRemote(_ path: String) async throws {
        try await storage.delete(path)
    }

    /// The paths the remote lists.
    func remotePaths() async throws -> [String] {
        try await storage.list().map(\.path)
    }

    // MARK: Local trees

    /// Writes a file below `root` (the source by default), creating its folders.
    @discardableResult
    func write(_ path: String, _ data: Data, in root: URL? = nil) throws -> URL {
        let url = URL(fileURLWithPath: (root ?? source).path + "/" + path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
        return url
    }

    /// Writes a text file below the source.
    @discardableResult
    func write(_ path: String, _ text: String) throws -> URL {
        try write(path, Data(text.utf8))
    }
}

extension XCTestCase {
    /// Runs `body` on a fresh rig of each backend (the WebDAV one on a server started for this
    /// test and stopped when it ends).
    func forEachDirectoryBackend(_ backends: [DirectoryBackend] = DirectoryBackend.allCases,
                                 _ body: (DirectoryRig) async throws -> Void) async throws {
        for backend in backends {
            let rig = try await DirectoryRig.make(backend, for: self)
            do {
                try await body(rig)
            } catch {
                XCTFail("backend \(backend.rawValue): \(error)")
            }
        }
    }

    /// Every entry below `root` by path bytes (folders, regular files with their bytes, links
    /// with their targets), read with Foundation, never following a link.
    func tree(_ root: URL) throws -> [ExactPath: TreeEntry] {
        var result: [ExactPath: TreeEntry] = [:]
        func walk(_ folder: String, _ relative: String) throws {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
                let path = folder + "/" + name
                let key = relative.isEmpty ? name : relative + "/" + name
                let type = try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType
                switch type {
                case .typeDirectory?:
                    result[ExactPath(key)] = .folder
                    try walk(path, key)
                case .typeSymbolicLink?:
                    result[ExactPath(key)] = .link(try FileManager.default.destinationOfSymbolicLink(atPath: path))
                case .typeRegular?:
                    result[ExactPath(key)] = .file(try Data(contentsOf: URL(fileURLWithPath: path)))
                default:
                    break
                }
            }
        }
        try walk(root.path, "")
        return result
    }

    /// Asserts the two trees hold the same entries, naming the differing paths.
    func assertSameTree(_ actual: [ExactPath: TreeEntry], _ expected: [ExactPath: TreeEntry], _ context: String,
                        file: StaticString = #filePath, line: UInt = #line) {
        guard actual != expected else { return }
        let paths = Set(actual.keys).union(expected.keys).filter { actual[$0] != expected[$0] }.sorted()
        let detail = paths.prefix(10).map { "\($0): \(actual[$0].map(String.init(describing:)) ?? "absent") "
            + "instead of \(expected[$0].map(String.init(describing:)) ?? "absent")" }
        XCTFail("\(context): trees differ at \(paths.count) paths: \(detail.joined(separator: "; "))", file: file, line: line)
    }
}

/// A one-shot signal between a test and a storage hook: `fire` once, any number of `wait`s.
final class Signal: Sendable {
    private struct State {
        var fired = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Wakes every waiter, now and later.
    func fire() {
        let waiters = state.withLock { state in
            state.fired = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once `fire` was called.
    func wait() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let fired = state.withLock { state in
                if !state.fired { state.waiters.append(waiter) }
                return state.fired
            }
            if fired { waiter.resume() }
        }
    }
}
