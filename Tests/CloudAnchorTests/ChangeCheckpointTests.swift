import Foundation
import XCTest
@testable import CloudAnchor

/// The contract's incremental listing: a persisted checkpoint (token and records saved
/// together), changes fetched since it, and a reset (one complete listing) when the token
/// expired, the zone is missing or deleted, or the checkpoint belongs to another account.
final class ChangeCheckpointTests: XCTestCase {
    private func engine(_ storage: ChangeFeedStorage, _ directory: URL, log: @escaping @Sendable (String) -> Void = { _ in })
        throws -> SyncEngine {
        SyncEngine(storage: storage, state: try StateStore(path: directory.appendingPathComponent("state.sqlite").path),
                   log: log)
    }

    func testLaterRunsListOnlyTheChangesSinceThePersistedCheckpointAndSeeAnotherDevicesChanges() async throws {
        let directory = try temporaryDirectory()
        let storage = ChangeFeedStorage(root: try temporaryDirectory())
        let files = [("a", "alpha"), ("b", "beta"), ("c", "gamma")]
        _ = try await engine(storage, directory).sync(snapshot(files))
        XCTAssertEqual(storage.listings.full, 1)
        let idle = syncedReport(try await engine(storage, directory).sync(snapshot(files)))
        XCTAssertEqual(idle.uploaded, [], "the checkpoint's listing, with the run's own writes applied, is complete")
        XCTAssertEqual(storage.listings.full, 1, "a reopened state lists incrementally")
        XCTAssertEqual(storage.listings.incremental, 1)
        try await storage.delete("b")
        try await storage.writeFromAnotherDevice("c", "GAMMA")
        let repaired = syncedReport(try await engine(storage, directory).sync(snapshot(files)))
        XCTAssertEqual(repaired.uploaded, ["b", "c", markerPath], "a deletion and a rewrite seen through the feed")
        XCTAssertEqual(storage.listings.full, 1)
        let settled = syncedReport(try await engine(storage, directory).sync(snapshot(files)))
        XCTAssertEqual(settled.uploaded, [], "the run's own writes reach the next run through the feed")
        XCTAssertEqual([storage.listings.full, storage.listings.incremental], [1, 3])
    }

    func testAnExpiredTokenResetsTheCheckpointAndListsEverythingOnce() async throws {
        let directory = try temporaryDirectory()
        let storage = ChangeFeedStorage(root: try temporaryDirectory())
        let logs = Recorder<String>()
        _ = try await engine(storage, directory).sync(snapshot([("a", "alpha")]))
        storage.expireTokens()
        let report = syncedReport(try await engine(storage, directory, log: { logs.append($0) }).sync(snapshot([("a", "alpha")])))
        XCTAssertEqual(report.uploaded, [])
        XCTAssertEqual(storage.listings.full, 2, "one complete listing after the expiry")
        XCTAssertEqual(logs.all.count { $0.contains("can no longer be used") }, 1)
        _ = try await engine(storage, directory).sync(snapshot([("a", "alpha")]))
        XCTAssertEqual(storage.listings.full, 2, "and incremental again after it")
    }

    func testADeletedZoneResetsTheCheckpointAndEverythingUploadsAgain() async throws {
        let directory = try temporaryDirectory()
        let storage = ChangeFeedStorage(root: try temporaryDirectory())
        _ = try await engine(storage, directory).sync(snapshot([("a", "alpha"), ("b", "beta")]))
        try await storage.deleteZone()
        let report = syncedReport(try await engine(storage, directory).sync(snapshot([("a", "alpha"), ("b", "beta")])))
        XCTAssertEqual(report.uploaded, ["a", "b", markerPath])
        XCTAssertEqual(storage.listings.full, 2)
    }

    func testACheckpointOfAnotherAccountIsDiscarded() async throws {
        let directory = try temporaryDirectory()
        let storage = ChangeFeedStorage(root: try temporaryDirectory())
        _ = try await engine(storage, directory).sync(snapshot([("a", "alpha")]))
        storage.switchAccount(to: "account-2")
        let report = syncedReport(try await engine(storage, directory).sync(snapshot([("a", "alpha")])))
        XCTAssertEqual(report.uploaded, ["a", markerPath], "another account: a full re-upload, never a merge")
        XCTAssertEqual([storage.listings.full, storage.listings.incremental], [2, 0],
                       "the other account's checkpoint was not used")
        let checkpoint = try await StateStore(path: directory.appendingPathComponent("state.sqlite").path).loadCheckpoint()
        XCTAssertEqual(checkpoint?.identity, "account-2")
    }
}
