import Foundation
import SQLiteStore
import Synchronization
import XCTest
@testable import CloudAnchor

/// The cloud anchor's blocking work runs on threads made for it: the folder backend's file calls
/// on its executor, each engine's own work on its actor's thread, never on the cooperative pool.
final class ThreadTests: XCTestCase {
    func testTheFolderBackendRunsEveryFileCallOnItsOwnExecutor() async throws {
        let executor = SerialThreadExecutor(name: "test.cloud-folder")
        XCTAssertFalse(executor.isThreadRunning, "no work yet, no thread")
        let storage = FolderStorage(root: try temporaryDirectory(), executor: executor)
        _ = try await storage.writeBytes("a/b.txt", Data("hello".utf8))
        XCTAssertTrue(executor.isThreadRunning, "the write ran on the storage's executor")
        let listed = try await storage.list()
        XCTAssertEqual(listed.map(\.path), ["a/b.txt"])
        let read = try await storage.readBytes("a/b.txt")
        XCTAssertEqual(read, Data("hello".utf8))
        XCTAssertFalse(executor.isCurrent, "the caller's own thread is not the executor's")
    }

    func testTheBackupEngineRunsItsStepsOnItsOwnThread() async throws {
        let rig = try Rig.make(.folder)
        defer { rig.tearDown() }
        let engine = try rig.engine()
        let executor = engine.executor
        let onActorThread = Mutex<[Bool]>([])
        _ = try await engine.sync(snapshot([("one.txt", "1"), ("two.txt", "2")])) { _, _ in
            onActorThread.withLock { $0.append(executor.isCurrent) }
        }
        let seen = onActorThread.withLock { $0 }
        XCTAssertFalse(seen.isEmpty, "progress was reported")
        XCTAssertTrue(seen.allSatisfy { $0 }, "every step ran on the engine's thread: \(seen)")
    }

    func testTheRestoreEngineRunsItsStepsOnItsOwnThread() async throws {
        let rig = try Rig.make(.folder)
        defer { rig.tearDown() }
        let found = try await rig.backUp([("one.txt", "1"), ("two.txt", "2")])
        let restorer = try rig.restorer()
        let executor = restorer.executor
        let onActorThread = Mutex<[Bool]>([])
        _ = try await restorer.start(rig.plan(found)) { _ in
            onActorThread.withLock { $0.append(executor.isCurrent) }
        }
        let seen = onActorThread.withLock { $0 }
        XCTAssertFalse(seen.isEmpty, "progress was reported")
        XCTAssertTrue(seen.allSatisfy { $0 }, "every step ran on the restore engine's thread: \(seen)")
        XCTAssertEqual(rig.restored("two.txt"), "2")
    }
}
