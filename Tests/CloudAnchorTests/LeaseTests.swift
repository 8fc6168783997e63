import Foundation
import XCTest
@testable import CloudAnchor

/// The writer lease on each kind of storage: one holder at a time, the holder's successor (same
/// token) let in, expiry honoured where the storage has no lock of its own.
final class LeaseTests: XCTestCase {
    /// A storage with only the basic operations, so it keeps the default file lease.
    private struct PlainStorage: CloudStorage {
        let inner: FolderStorage

        func list() async throws -> [RemoteFile] { try await inner.list() }
        func identityKey() async throws -> String? { try await inner.identityKey() }
        func readBytes(_ path: String) async throws -> Data { try await inner.readBytes(path) }
        func writeBytes(_ path: String, _ data: Data) async throws -> RemoteFile { try await inner.writeBytes(path, data) }
        func writeFile(_ path: String, from localURL: URL) async throws -> RemoteFile {
            try await inner.writeFile(path, from: localURL)
        }
        func downloadFile(_ path: String, to localURL: URL) async throws { try await inner.downloadFile(path, to: localURL) }
        func delete(_ path: String) async throws { try await inner.delete(path) }
        func prefetch(_ paths: [String]) async {}
    }

    private func claim(_ token: String, at seconds: Double, duration: Double = 60) -> LeaseClaim {
        LeaseClaim(owner: "owner \(token)", token: token, duration: duration, now: Date(timeIntervalSince1970: seconds))
    }

    func testTheFileLeaseGrantsOneHolderLetsItsSuccessorInAndHonoursExpiry() async throws {
        let storage = PlainStorage(inner: FolderStorage(root: try temporaryDirectory()))
        guard case .granted(let first) = try await storage.acquireLease(claim("a", at: 1_000)) else { return XCTFail("first") }
        let refused = try await storage.acquireLease(claim("b", at: 1_030))
        XCTAssertEqual(refused, .held(owner: "owner a", until: Date(timeIntervalSince1970: 1_060)))
        let successor = try await storage.acquireLease(claim("a", at: 1_030))
        guard case .granted = successor else { return XCTFail("the same token is the holder's successor") }
        guard case .granted(let taken) = try await storage.acquireLease(claim("b", at: 1_100)) else {
            return XCTFail("an expired lease is taken over")
        }
        await storage.releaseLease(first)
        let stillB = try await storage.acquireLease(claim("c", at: 1_110))
        XCTAssertEqual(stillB, .held(owner: "owner b", until: Date(timeIntervalSince1970: 1_160)),
                       "releasing a lease that was taken over removes nothing")
        await storage.releaseLease(taken)
        guard case .granted = try await storage.acquireLease(claim("c", at: 1_110)) else { return XCTFail("released") }
        let listed = try await storage.list().map(\.path)
        XCTAssertEqual(listed, [LeaseRecord.path], "the file lease is a plain file the engine leaves alone")
    }

    func testTheFolderLeaseIsAnExclusiveLockWhateverTheExpiryAndItsRecordNamesTheHolder() async throws {
        let root = try temporaryDirectory()
        let storage = FolderStorage(root: root)
        guard case .granted(let held) = try await storage.acquireLease(claim("a", at: 1_000, duration: 1)) else {
            return XCTFail("first")
        }
        let refused = try await storage.acquireLease(claim("b", at: 5_000))
        XCTAssertEqual(refused, .held(owner: "owner a", until: Date(timeIntervalSince1970: 1_001)),
                       "a live holder keeps the lock past its expiry; its record names it")
        let sameToken = try await FolderStorage(root: root).acquireLease(claim("a", at: 5_000))
        guard case .held = sameToken else { return XCTFail("a second lock in a live process is refused even for the token") }
        guard case .granted = try await storage.renewLease(held, for: claim("a", at: 1_000, duration: 600)) else {
            return XCTFail("renew")
        }
        await storage.releaseLease(held)
        guard case .granted = try await storage.acquireLease(claim("b", at: 5_000)) else { return XCTFail("released") }
        let listed = try await storage.list()
        XCTAssertEqual(listed, [], "the lock file is the backend's own")
    }
}
