import Foundation
@testable import SnapshotTransfer
import SyncKernel
import TestServerSupport
import XCTest

/// The embedded blob store: whole blobs or none, 0600 files in a 0700 folder, expiry on a
/// virtual clock, failed puts leaving nothing.
final class FolderBlobStoreTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "synckernel-blobs-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    func testABlobIsStoredWholeAndReadBack() async throws {
        let store = try FolderBlobStore(directory: directory, clock: VirtualWallClock())
        let bytes = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        var source = PieceSource(bytes, pieceBytes: 65_536)
        let id = try await store.put(&source)
        XCTAssertEqual(try files(), [id.hex + ".blob"])
        var reader = try await store.open(id)
        XCTAssertEqual(reader.size, Int64(bytes.count))
        let read = try await PieceSource.drain(blob: &reader)
        XCTAssertEqual(read, bytes)
        let folder = try FileManager.default.attributesOfItem(atPath: directory)
        let file = try FileManager.default.attributesOfItem(atPath: store.path(of: id))
        XCTAssertEqual((folder[.posixPermissions] as? NSNumber)?.intValue, 0o700)
        XCTAssertEqual((file[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        try await store.delete(id)
        try await store.delete(id)
        await assertThrowsAsync({ try await store.open(id) }) { error in XCTAssertEqual((error as? SnapshotTransferError)?.code, .blobNotFound) }
    }

    func testAnUnknownIdIsNotFound() async throws {
        let store = try FolderBlobStore(directory: directory, clock: VirtualWallClock())
        await assertThrowsAsync({ try await store.open(BlobID.random()) }) { error in XCTAssertEqual((error as? SnapshotTransferError)?.code, .blobNotFound) }
    }

    func testABlobExpiresAfterItsTimeToLiveAndIsRemoved() async throws {
        let clock = VirtualWallClock()
        let store = try FolderBlobStore(directory: directory, clock: clock)
        XCTAssertEqual(store.timeToLive, .seconds(86_400))
        var first = PieceSource([[1, 2, 3]])
        let old = try await store.put(&first)
        clock.advance(by: .seconds(86_399))
        let kept = try await store.open(old)
        XCTAssertEqual(kept.size, 3, "a second before its time it is still there")
        var second = PieceSource([[4, 5]])
        let young = try await store.put(&second)
        clock.advance(by: .seconds(1))
        await assertThrowsAsync({ try await store.open(old) }) { error in XCTAssertEqual((error as? SnapshotTransferError)?.code, .blobNotFound) }
        XCTAssertEqual(try files(), [young.hex + ".blob"], "opening an expired blob removed it")
        clock.advance(by: .seconds(86_399))
        let removed = try await store.removeExpired()
        XCTAssertEqual(removed, 1)
        XCTAssertEqual(try files(), [])
    }

    func testAPutSweepsExpiredBlobs() async throws {
        let clock = VirtualWallClock()
        let store = try FolderBlobStore(directory: directory, timeToLive: .seconds(60), clock: clock)
        for _ in 0..<3 {
            var source = PieceSource([[9]])
            _ = try await store.put(&source)
        }
        clock.advance(by: .seconds(60))
        var source = PieceSource([[7]])
        let kept = try await store.put(&source)
        XCTAssertEqual(try files(), [kept.hex + ".blob"])
    }

    func testAFailedPutLeavesNothing() async throws {
        let store = try FolderBlobStore(directory: directory, clock: VirtualWallClock(), maxBlobBytes: 10)
        var failing = PieceSource([[1, 2], [3, 4], [5]], failAfter: 2)
        await assertThrowsAsync({ try await store.put(&failing) }) { error in XCTAssertEqual((error as? SyncKernelError)?.code, .storeClosed) }
        var large = PieceSource([[UInt8](repeating: 1, count: 8), [UInt8](repeating: 2, count: 8)])
        await assertThrowsAsync({ try await store.put(&large) }) { error in XCTAssertEqual((error as? SyncKernelError)?.code, .limitExceeded) }
        XCTAssertEqual(try files(), [])
    }

    func testRejectAFileThatIsNotABlob() async throws {
        let store = try FolderBlobStore(directory: directory, clock: VirtualWallClock())
        let id = BlobID.random()
        _ = FileManager.default.createFile(atPath: store.path(of: id), contents: Data("not a blob at all".utf8))
        await assertThrowsAsync({ try await store.open(id) }) { error in XCTAssertEqual((error as? SnapshotTransferError)?.code, .blobStoreFailed) }
        let short = BlobID.random()
        _ = FileManager.default.createFile(atPath: store.path(of: short), contents: Data([1, 2, 3]))
        await assertThrowsAsync({ try await store.open(short) }) { error in XCTAssertEqual((error as? SnapshotTransferError)?.code, .blobStoreFailed) }
    }

    func testRejectAFolderThatIsAFile() async throws {
        _ = FileManager.default.createFile(atPath: directory, contents: Data([1]))
        XCTAssertThrowsError(try FolderBlobStore(directory: directory)) { error in
            XCTAssertEqual((error as? SnapshotTransferError)?.code, .blobStoreFailed)
        }
        XCTAssertThrowsError(try FolderBlobStore(directory: directory + "-x", timeToLive: .zero))
    }
}
