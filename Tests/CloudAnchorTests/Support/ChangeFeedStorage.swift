@testable import CloudAnchor
import Foundation
import Synchronization
import XCTest

/// A storage with a change feed shaped like the contract's CloudKit zone (a folder underneath):
/// every write and delete through it is journaled, `changes(since:)` answers from the journal,
/// and a test can expire its tokens, delete and recreate its zone, or switch its account.
///
/// Invariant: a token is `<zone>:<sequence>`; it is served while its zone is the current one and
/// its sequence is not older than the oldest retained; otherwise `changeTokenExpired`.
final class ChangeFeedStorage: CloudStorage {
    private struct Feed {
        var zone = "zone-1"
        var account = "account-1"
        var sequence = 0
        var oldest = 0
        var journal: [(sequence: Int, path: String, file: RemoteFile?)] = []
        var fullListings = 0
        var incrementalListings = 0
    }

    private let inner: FolderStorage
    private let feed = Mutex(Feed())

    init(root: URL) {
        inner = FolderStorage(root: root)
    }

    /// How many complete and incremental listings the feed served.
    var listings: (full: Int, incremental: Int) {
        feed.withLock { ($0.fullListings, $0.incrementalListings) }
    }

    /// Expires every token handed out so far.
    func expireTokens() {
        feed.withLock { $0.oldest = $0.sequence + 1 }
    }

    /// Deletes the zone with every record, and recreates it empty under a new name.
    func deleteZone() async throws {
        for file in try await inner.list() { try await inner.delete(file.path) }
        feed.withLock { feed in
            feed.zone = "zone-\(feed.sequence + 2)"
            feed.journal = []
            feed.oldest = feed.sequence
        }
    }

    /// Switches to another account's zone (its records are the same folder, for simplicity).
    func switchAccount(to account: String) {
        feed.withLock { $0.account = account }
    }

    /// Another device writes `path`.
    func writeFromAnotherDevice(_ path: String, _ text: String) async throws {
        _ = try await writeBytes(path, Data(text.utf8))
    }

    func list() async throws -> [RemoteFile] { try await inner.list() }
    func identityKey() async throws -> String? { feed.withLock { $0.account } }
    func readBytes(_ path: String) async throws -> Data { try await inner.readBytes(path) }
    func downloadFile(_ path: String, to localURL: URL) async throws { try await inner.downloadFile(path, to: localURL) }
    func prefetch(_ paths: [String]) async {}

    func writeBytes(_ path: String, _ data: Data) async throws -> RemoteFile {
        record(path, try await inner.writeBytes(path, data))
    }

    func writeFile(_ path: String, from localURL: URL) async throws -> RemoteFile {
        record(path, try await inner.writeFile(path, from: localURL))
    }

    func delete(_ path: String) async throws {
        try await inner.delete(path)
        _ = record(path, nil)
    }

    func changes(since checkpoint: String?) async throws -> RemoteChanges {
        guard let checkpoint else {
            let files = try await inner.list()
            return feed.withLock { feed in
                feed.fullListings += 1
                return RemoteChanges(isComplete: true, changed: files, checkpoint: "\(feed.zone):\(feed.sequence)")
            }
        }
        return try feed.withLock { feed throws(CloudError) -> RemoteChanges in
            let parts = checkpoint.split(separator: ":")
            guard parts.count == 2, parts[0] == feed.zone, let since = Int(parts[1]), since >= feed.oldest else {
                throw .changeTokenExpired
            }
            feed.incrementalListings += 1
            var latest: [String: RemoteFile?] = [:]
            for entry in feed.journal where entry.sequence > since { latest[entry.path] = entry.file }
            return RemoteChanges(isComplete: false, changed: latest.values.compactMap { $0 },
                                 deleted: latest.filter { $0.value == nil }.map(\.key).sorted(),
                                 checkpoint: "\(feed.zone):\(feed.sequence)")
        }
    }

    private func record(_ path: String, _ file: RemoteFile?) -> RemoteFile {
        feed.withLock { feed in
            feed.sequence += 1
            feed.journal.append((feed.sequence, path, file))
        }
        return file ?? RemoteFile(path: path, size: 0)
    }
}

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
