import Foundation
import Synchronization
import XCTest
@testable import CloudAnchor

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
