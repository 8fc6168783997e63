import Foundation
import XCTest
@testable import CloudAnchor

/// `ChangeFeedStorage` stands in for the contract's change feed in the checkpoint tests: check
/// that it journals what it promises, serves tokens exactly while they are valid, and expires
/// them on every event the contract names.
final class ChangeFeedStorageSelfTests: XCTestCase {
    private func storage() throws -> (ChangeFeedStorage, URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        return (ChangeFeedStorage(root: root), root)
    }

    func testAFirstListingIsCompleteAndLaterOnesCarryOnlyTheChangesSinceTheToken() async throws {
        let (feed, _) = try storage()
        _ = try await feed.writeBytes("a.txt", Data("a".utf8))
        let first = try await feed.changes(since: nil)
        XCTAssertTrue(first.isComplete)
        XCTAssertEqual(first.changed.map(\.path), ["a.txt"])
        _ = try await feed.writeBytes("b.txt", Data("b".utf8))
        try await feed.delete("a.txt")
        let next = try await feed.changes(since: first.checkpoint)
        XCTAssertFalse(next.isComplete)
        XCTAssertEqual(next.changed.map(\.path), ["b.txt"])
        XCTAssertEqual(next.deleted, ["a.txt"])
        let quiet = try await feed.changes(since: next.checkpoint)
        XCTAssertTrue(quiet.changed.isEmpty && quiet.deleted.isEmpty, "nothing since the last token")
        XCTAssertEqual(feed.listings.full, 1)
        XCTAssertEqual(feed.listings.incremental, 2)
    }

    func testRejectATokenAfterExpiryAZoneDeletionOrAMalformedToken() async throws {
        let (feed, _) = try storage()
        _ = try await feed.writeBytes("a.txt", Data("a".utf8))
        let token = try await feed.changes(since: nil).checkpoint
        feed.expireTokens()
        await assertExpired(feed, token)
        let fresh = try await feed.changes(since: nil).checkpoint
        try await feed.deleteZone()
        await assertExpired(feed, fresh)
        let left = try await feed.list()
        XCTAssertTrue(left.isEmpty, "the zone's records went with it")
        await assertExpired(feed, "not-a-token")
    }

    func testSwitchingAccountChangesTheIdentity() async throws {
        let (feed, _) = try storage()
        let before = try await feed.identityKey()
        XCTAssertEqual(before, "account-1")
        feed.switchAccount(to: "account-2")
        let after = try await feed.identityKey()
        XCTAssertEqual(after, "account-2")
    }

    private func assertExpired(_ feed: ChangeFeedStorage, _ token: String?, file: StaticString = #filePath,
                               line: UInt = #line) async {
        do {
            _ = try await feed.changes(since: token)
            XCTFail("the token was served", file: file, line: line)
        } catch {
            XCTAssertEqual(error as? CloudError, .changeTokenExpired, file: file, line: line)
        }
    }
}
