import Foundation
import XCTest
@testable import CloudAnchor

/// The fault-injecting backend itself: slow writes, faults before and after an operation, and
/// crash points numbered around every write, download and delete.
final class FaultInjectingStorageTests: XCTestCase {
    func testSlowWritesWaitOnTheInjectedSleeperBeforeEveryWrite() async throws {
        let rig = try Rig.make(.folder)
        defer { rig.tearDown() }
        let sleeper = RecordingSleeper()
        let slow = FaultInjectingStorage(wrapping: rig.folder, writeDelay: 0.25, sleeper: sleeper)
        let engine = SyncEngine(storage: slow, state: try StateStore(path: rig.statePath))
        _ = try await engine.sync(snapshot([("a", "1"), ("b", "2")]))
        XCTAssertEqual(sleeper.requests.all, [0.25, 0.25, 0.25], "two files and the marker")
    }

    func testAFaultAfterAnOperationLetsItCompleteFirst() async throws {
        let rig = try Rig.make(.faultInjecting)
        defer { rig.tearDown() }
        let faults = try XCTUnwrap(rig.faults)
        faults.inject(CloudError.transport, on: .writeBytes, path: "a", timing: .after)
        do {
            _ = try await faults.writeBytes("a", Data("done".utf8))
            XCTFail("the fault was not thrown")
        } catch {
            XCTAssertEqual(error as? CloudError, .transport)
        }
        let stored = try await rig.folder.readBytes("a")
        XCTAssertEqual(stored, Data("done".utf8))
        _ = try await faults.writeBytes("a", Data("again".utf8))
        XCTAssertEqual(faults.completed(.writeBytes), ["a", "a"], "the fault fired once")
    }

    func testCrashPointsAreNumberedBeforeAndAfterEveryWriteDownloadAndDelete() async throws {
        let points = CrashPoints(crashAt: 4)
        let rig = try Rig.make(.faultInjecting, crashPoints: points)
        defer { rig.tearDown() }
        let faults = try XCTUnwrap(rig.faults)
        _ = try await faults.writeBytes("a", Data("1".utf8))
        _ = try await faults.list()
        do {
            try await faults.delete("a")
            XCTFail("point 4 did not crash")
        } catch let crash as CrashPoints.Crash {
            XCTAssertEqual(crash, CrashPoints.Crash(point: 4, label: "after delete a"))
        }
        XCTAssertEqual(points.passed, 4, "list passes no point")
        XCTAssertEqual(faults.completed(.delete), ["a"], "the delete happened before the crash")
        try await faults.delete("a")
        XCTAssertEqual(points.passed, 6, "later points pass")
    }
}
