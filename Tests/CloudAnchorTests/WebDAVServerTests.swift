import Foundation
import XCTest
@testable import CloudAnchor

/// The happy path and the guards against a real WebDAV server on loopback (rclone serve webdav,
/// which each test starts on a free port and stops when it ends).
final class WebDAVServerTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try temporaryDirectory()
    }

    private func collection() -> String {
        "test-\(UUID().uuidString)"
    }

    private func engine(_ storage: any CloudStorage, availability: any AvailabilitySource = FixedAvailability())
        throws -> SyncEngine {
        return SyncEngine(storage: storage, availability: availability,
                          state: try StateStore(path: directory.appendingPathComponent("state.sqlite").path))
    }

    func testWebDAV_happyPathBacksUpNestedFilesProbesAndRestoresThem() async throws {
        let server = try await WebDAVServer.running(for: self)
        let storage = server.storage(collection: collection())
        let source = directory.appendingPathComponent("source")
        try FileManager.default.createDirectory(at: source.appendingPathComponent("deep/er"), withIntermediateDirectories: true)
        let big = Data((0..<300_000).map { UInt8($0 % 251) })
        try big.write(to: source.appendingPathComponent("deep/er/big.bin"))
        let entries = [
            SyncEntry(path: "deep/er/big.bin", size: Int64(big.count), hash: ContentHash.sha256(big),
                      source: .file(source.appendingPathComponent("deep/er/big.bin"))),
            .bytes("notes/a b.txt", Data("spaced name".utf8)),
            .bytes("top.txt", Data("top".utf8), hashed: false),
        ]
        let engine = try engine(storage)
        let report = syncedReport(try await engine.sync(SyncSnapshot(entries: entries, marker: Data("dav marker".utf8))))
        XCTAssertEqual(report.uploaded, ["top.txt", "deep/er/big.bin", "notes/a b.txt", markerPath])
        let again = syncedReport(try await engine.sync(SyncSnapshot(entries: entries, marker: Data("dav marker".utf8))))
        XCTAssertEqual(again.uploaded, [], "a second run finds everything in place")

        guard case .found(let found) = await engine.probe() else { return XCTFail("expected .found") }
        XCTAssertEqual(found.files.map(\.path), ["deep/er/big.bin", "notes/a b.txt", "top.txt"])
        XCTAssertEqual(found.files.first?.size, Int64(big.count))
        let identity = try await storage.identityKey()
        XCTAssertEqual(found.source.identityKey, identity)

        let target = directory.appendingPathComponent("restored")
        let plan = RestorePlan(source: found.source, files: found.files.map {
            RestoreFile(remotePath: $0.path, localURL: target.appendingPathComponent($0.path), required: true, size: $0.size)
        })
        let restorer = RestoreEngine(storage: storage,
                                     state: try StateStore(path: directory.appendingPathComponent("restore.sqlite").path))
        let outcome = try await restorer.start(plan)
        guard case .completed = outcome else { return XCTFail("expected .completed, got \(outcome)") }
        XCTAssertEqual(try Data(contentsOf: target.appendingPathComponent("deep/er/big.bin")), big)
        XCTAssertEqual(try String(contentsOf: target.appendingPathComponent("notes/a b.txt"), encoding: .utf8), "spaced name")

        let shrunk = syncedReport(try await engine.sync(snapshot([("top.txt", "top")], hashed: false)))
        XCTAssertEqual(shrunk.deleted, ["deep/er/big.bin", "notes/a b.txt"])
        let left = try await storage.list().map(\.path)
        XCTAssertEqual(left, [markerPath, "top.txt"])
    }

    func testWebDAV_guardsStopRunsBeforeAnyWrite() async throws {
        let server = try await WebDAVServer.running(for: self)
        let name = collection()
        let storage = server.storage(collection: name)
        let eight = (1...8).map { ("f\($0)", "\($0)") }
        _ = try await engine(storage).sync(snapshot(eight))

        let fresh = directory.appendingPathComponent("fresh")
        try FileManager.default.createDirectory(at: fresh, withIntermediateDirectories: true)
        let otherDevice = SyncEngine(storage: server.storage(collection: name),
                                     state: try StateStore(path: fresh.appendingPathComponent("state.sqlite").path))
        let empty = try await otherDevice.sync(snapshot([]))
        XCTAssertEqual(empty, .unavailable(.restorePending), "empty guard")

        let engine = try engine(storage)
        let shrink = try await engine.sync(snapshot(Array(eight.prefix(2))))
        XCTAssertEqual(shrink, .unavailable(.shrinkSuspected(deletes: 6, known: 8)), "shrink guard")

        try await engine.setHold(.held(reason: "restore"))
        let held = try await engine.sync(snapshot(eight + [("new", "n")]))
        XCTAssertEqual(held, .unavailable(.writeHeld), "write hold")
        try await engine.setHold(.none)

        let gated = try self.engine(storage, availability: FixedAvailability(.needsConsent))
        let consent = try await gated.sync(snapshot(eight + [("new", "n")]))
        XCTAssertEqual(consent, .unavailable(.needsConsent), "availability gate")

        let files = try await storage.list().map(\.path)
        XCTAssertEqual(files, (eight.map(\.0) + [markerPath]).sorted(), "nothing was written by a stopped run")
    }

    func testWebDAV_readOrDownloadOfAnAbsentPathIsNotFoundAndDeleteOfOneSucceeds() async throws {
        let server = try await WebDAVServer.running(for: self)
        let storage = server.storage(collection: collection())
        _ = try await storage.writeBytes("present.txt", Data("x".utf8))
        do {
            _ = try await storage.readBytes("absent.txt")
            XCTFail("read of an absent path succeeded")
        } catch {
            XCTAssertEqual(error as? CloudError, .notFound)
        }
        do {
            try await storage.downloadFile("absent.txt", to: directory.appendingPathComponent("x"))
            XCTFail("download of an absent path succeeded")
        } catch {
            XCTAssertEqual(error as? CloudError, .notFound)
        }
        try await storage.delete("absent.txt")
    }

    func testWebDAV_a401IsRetriedOnceThenAuthRevoked() async throws {
        let server = try await WebDAVServer.running(for: self)
        let counting = CountingTransport(URLSessionTransport())
        let storage = server.storage(collection: collection(), password: "wrong", transport: counting)
        do {
            _ = try await storage.list()
            XCTFail("a wrong password listed")
        } catch {
            XCTAssertEqual(error as? CloudError, .authRevoked)
        }
        XCTAssertEqual(counting.statuses.all, [401, 401])
    }

    func testWebDAV_aServerThatDoesNotAnswerIsOffline() async throws {
        _ = try await WebDAVServer.running(for: self)
        let storage = WebDAVStorage(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:9/backup/")))
        do {
            _ = try await storage.list()
            XCTFail("listing a closed port succeeded")
        } catch {
            XCTAssertEqual(error as? CloudError, .offline)
        }
    }
}
