import Foundation
import XCTest
@testable import CloudAnchor

/// The state file: durable settings, atomic transactions, and what survives a reopen.
final class StateStoreTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try temporaryDirectory()
    }

    private var path: String {
        directory.appendingPathComponent("state.sqlite").path
    }

    func testStateFileUsesWALWithSynchronousFull() async throws {
        let settings = try await StateStore(path: path).durability()
        XCTAssertEqual(settings.journalMode, "wal")
        XCTAssertEqual(settings.synchronous, 2, "2 is FULL")
    }

    func testAStateFileThatCannotBeOpenedIsLocalIO() {
        let missing = directory.appendingPathComponent("missing/state.sqlite").path
        XCTAssertThrowsError(try StateStore(path: missing)) { XCTAssertEqual($0 as? CloudError, .localIO) }
    }

    func testAnInterruptedTransactionLeavesNoTrace() async throws {
        let intact = try StateStore(path: path)
        try await intact.replaceSync(SyncState(identity: "id", entries: ["a": StoredEntry(size: 1, hash: "h")]))
        struct Killed: Error {}
        let dying = try StateStore(path: path, commitHook: { _ in throw Killed() })
        do {
            try await dying.replaceSync(SyncState(identity: "other", entries: ["b": StoredEntry(size: 2, hash: nil)]))
            XCTFail("the hook did not interrupt the transaction")
        } catch is Killed {}
        let reopened = try await StateStore(path: path).loadSync()
        XCTAssertEqual(reopened.identity, "id")
        XCTAssertEqual(reopened.entries, ["a": StoredEntry(size: 1, hash: "h")])
    }

    func testSyncStateRestoreRecordAndHoldSurviveAReopen() async throws {
        let store = try StateStore(path: path)
        let intent = PutIntent(path: "a", size: 3, hash: "h", tagBefore: "t", existedBefore: true)
        try await store.replaceSync(SyncState(identity: "id", syncedAt: Date(timeIntervalSince1970: 100), markerDirty: true,
                                              entries: ["a": StoredEntry(size: 1, hash: nil)], intent: intent))
        try await store.setHold(.held(reason: "why"))
        let source = SourceRef(identityKey: "id", markerRemoteId: "m", markerFingerprint: "f")
        let plan = RestorePlan(source: source, files: [
            RestoreFile(remotePath: "x", localURL: directory.appendingPathComponent("x"), required: true, group: "g", size: 5),
            RestoreFile(remotePath: "y", localURL: directory.appendingPathComponent("y"), required: false),
        ])
        try await store.saveRecord(plan, startedAt: Date(timeIntervalSince1970: 200))
        try await store.updateFiles([1], phase: .downloaded, attemptsDelta: 2)

        let reopened = try StateStore(path: path)
        let state = try await reopened.loadSync()
        XCTAssertEqual(state, SyncState(identity: "id", syncedAt: Date(timeIntervalSince1970: 100), markerDirty: true,
                                        entries: ["a": StoredEntry(size: 1, hash: nil)], intent: intent))
        let hold = try await reopened.hold()
        XCTAssertEqual(hold, .held(reason: "why"))
        let record = try await reopened.loadRecord()
        XCTAssertEqual(record?.source, source)
        XCTAssertEqual(record?.files.map(\.file), plan.files)
        XCTAssertEqual(record?.files.map(\.phase), [.pending, .downloaded])
        XCTAssertEqual(record?.files.map(\.attempts), [0, 2])
    }
}
