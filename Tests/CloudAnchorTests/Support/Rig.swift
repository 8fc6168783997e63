import Foundation
import XCTest
@testable import CloudAnchor

/// The backends the engine tests run on.
enum BackendKind: String, CaseIterable {
    /// The folder backend on its own.
    case folder
    /// The fault-injecting backend wrapping a folder backend.
    case faultInjecting
}

/// One test setup: a folder standing in for the cloud, the storage over it, a state file and
/// a local work folder, all below a fresh temporary directory.
struct Rig {
    let kind: BackendKind
    let directory: URL
    let remoteRoot: URL
    let localRoot: URL
    let statePath: String
    let folder: FolderStorage
    let faults: FaultInjectingStorage?
    let availability = SwitchableAvailability()

    var storage: any CloudStorage {
        faults ?? folder
    }

    /// A fresh rig of `kind`.
    static func make(_ kind: BackendKind, assignsRemoteIds: Bool = false, crashPoints: CrashPoints? = nil) throws -> Rig {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("cloudanchor-\(UUID().uuidString)")
        return try Rig(kind: kind, directory: directory, remote: "remote", assignsRemoteIds: assignsRemoteIds,
                       crashPoints: crashPoints)
    }

    private init(kind: BackendKind, directory: URL, remote: String, assignsRemoteIds: Bool,
                 crashPoints: CrashPoints?) throws {
        self.kind = kind
        self.directory = directory
        remoteRoot = directory.appendingPathComponent(remote)
        localRoot = directory.appendingPathComponent("local")
        statePath = directory.appendingPathComponent("state.sqlite").path
        try FileManager.default.createDirectory(at: remoteRoot, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: localRoot, withIntermediateDirectories: true)
        folder = FolderStorage(root: remoteRoot)
        faults = kind == .faultInjecting
            ? FaultInjectingStorage(wrapping: folder, assignsRemoteIds: assignsRemoteIds, crashPoints: crashPoints)
            : nil
    }

    /// The same kind of rig over another, empty remote folder, sharing this rig's state file:
    /// an account switch.
    func switchedAccount() throws -> Rig {
        try Rig(kind: kind, directory: directory, remote: "remote-\(UUID().uuidString)", assignsRemoteIds: false,
                crashPoints: nil)
    }

    /// A new engine over this rig (a fresh process, as far as the engine can tell).
    func engine(policy: SyncPolicy = SyncPolicy(), commitHook: (@Sendable (String) throws -> Void)? = nil,
                log: @escaping @Sendable (String) -> Void = { _ in }) throws -> SyncEngine {
        SyncEngine(storage: storage, availability: availability,
                   state: try StateStore(path: statePath, commitHook: commitHook), policy: policy, log: log)
    }

    /// A new restore engine over this rig.
    func restorer(placement: any RestorePlacement = KeepWhereLanded(),
                  commitHook: (@Sendable (String) throws -> Void)? = nil) throws -> RestoreEngine {
        RestoreEngine(storage: storage, availability: availability,
                      state: try StateStore(path: statePath, commitHook: commitHook), placement: placement)
    }

    /// The sync state as the state file holds it now.
    func savedState() async throws -> SyncState {
        try await StateStore(path: statePath).loadSync()
    }

    /// Every remote file's content, by path (the backend's own files excluded).
    func remoteContents() async throws -> [String: Data] {
        var contents: [String: Data] = [:]
        for file in try await folder.list() {
            contents[file.path] = try await folder.readBytes(file.path)
        }
        return contents
    }

    /// Writes a file straight into the remote folder, as another device would.
    func putRemote(_ path: String, _ text: String) throws {
        let url = remoteRoot.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// Removes the rig's directory.
    func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }
}

extension XCTestCase {
    /// A fresh directory, removed when the test ends.
    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cloudanchor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// Runs `body` once per backend kind on a fresh rig, naming the kind in any failure.
    func forEachBackend(_ kinds: [BackendKind] = BackendKind.allCases, assignsRemoteIds: Bool = false,
                        _ body: (Rig) async throws -> Void) async throws {
        for kind in kinds {
            let rig = try Rig.make(kind, assignsRemoteIds: assignsRemoteIds)
            defer { rig.tearDown() }
            do {
                try await body(rig)
            } catch {
                XCTFail("backend \(kind.rawValue): \(error)")
            }
        }
    }
}

/// A snapshot of in-memory files, in the given order.
func snapshot(_ files: [(String, String)], hashed: Bool = true, marker: String = "marker v1",
              isEmpty: Bool? = nil, allowShrink: Bool = false, extra: [SyncEntry] = []) -> SyncSnapshot {
    SyncSnapshot(entries: files.map { SyncEntry.bytes($0.0, Data($0.1.utf8), hashed: hashed) } + extra,
                 marker: Data(marker.utf8), isEmpty: isEmpty, allowShrink: allowShrink)
}

/// The report of a `.synced` outcome, or a failure naming what came instead.
func syncedReport(_ outcome: SyncOutcome, file: StaticString = #filePath, line: UInt = #line) -> SyncReport {
    guard case .synced(let report) = outcome else {
        XCTFail("expected .synced, got \(outcome)", file: file, line: line)
        return SyncReport()
    }
    return report
}

let markerPath = SyncPolicy().markerPath
