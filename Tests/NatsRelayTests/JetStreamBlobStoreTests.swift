import SyncRelay
import Foundation
@testable import NatsRelay
import NotebookNamespace
import SnapshotTransfer
import SyncKernel
import SyncKernelSimulator
import TestServerSupport
import TestServers
import XCTest

/// The JetStream blob store against a `nats-server -js` each test starts on a free loopback port
/// (stopped when the test ends): the stream's settings, chunking under the payload limit, the
/// hashed manifest, duplicate message ids, expiry-free fetching by id alone, and a whole snapshot
/// transfer through it.
final class JetStreamBlobStoreTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "synckernel-jsblobs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func store(_ server: NatsServerProcess, options: JetStreamBlobOptions = JetStreamBlobOptions()) throws -> JetStreamBlobStore {
        let store = try JetStreamBlobStore(relay: NatsRelayOptions(servers: [server.url]), options: options)
        addTeardownBlock { store.close() }
        return store
    }

    /// A byte source over pieces, failing at `failAt` when given.
    private struct Pieces: ByteSource {
        var pieces: [[UInt8]]
        var failAt: Int?
        var index = 0

        mutating func next() throws(SyncKernelError) -> [UInt8]? {
            if index == failAt { throw SyncKernelError(.storeClosed) }
            guard index < pieces.count else { return nil }
            defer { index += 1 }
            return pieces[index]
        }
    }

    private static func bytes(_ count: Int, salt: Int = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ salt) }
    }

    private static func drain(_ reader: inout any BlobReader) async throws -> [UInt8] {
        var out: [UInt8] = []
        while let piece = try await reader.nextPiece() { out += piece }
        return out
    }

    func testTheStreamKeepsFilesForADayAndDropsDuplicateIds() async throws {
        let server = try await startNatsServer(jetStream: true)
        let store = try store(server)
        let settings = try store.streamSettings()
        XCTAssertEqual(settings.maxAge, .seconds(86_400))
        XCTAssertTrue(settings.fileStorage)
        XCTAssertEqual(settings.duplicates, .seconds(120))
        XCTAssertEqual(store.timeToLive, .seconds(86_400))
        let again = try self.store(server)
        XCTAssertEqual(try again.streamSettings().maxAge, .seconds(86_400), "a second store finds the stream as it is")
        try store.publish([1, 2, 3], subject: "synckernel.blob.probe", messageID: "probe-1")
        try store.publish([4, 5, 6], subject: "synckernel.blob.probe", messageID: "probe-1")
        XCTAssertEqual(try store.lastMessage(on: "synckernel.blob.probe"), [1, 2, 3], "the retry with the same id was dropped")
        XCTAssertEqual(try store.streamSettings().messages, 1)
    }

    func testABlobIsCutUnderThePayloadLimitAndReadBackByIdAlone() async throws {
        let server = try await startNatsServer(config: "max_payload: 65536", jetStream: true)
        let store = try store(server)
        XCTAssertEqual(store.chunkBytes, 65_536 - 4_096)
        let blob = Self.bytes(1_000_000)
        var source = Pieces(pieces: stride(from: 0, to: blob.count, by: 100_000).map { Array(blob[$0..<min($0 + 100_000, blob.count)]) })
        let id = try await store.put(&source)
        let chunks = (blob.count + store.chunkBytes - 1) / store.chunkBytes
        XCTAssertEqual(try store.streamSettings().messages, UInt64(chunks + 1), "every chunk and the manifest")
        XCTAssertNotNil(try store.lastMessage(on: store.subject(id, chunk: chunks - 1)))
        XCTAssertNil(try store.lastMessage(on: store.subject(id, chunk: chunks)))
        let stranger = try self.store(server)
        var reader = try await stranger.open(id)
        XCTAssertEqual(reader.size, Int64(blob.count))
        let read = try await Self.drain(&reader)
        XCTAssertEqual(read, blob)
    }

    func testABlobSurvivesAServerRestart() async throws {
        let server = try await startNatsServer(jetStream: true)
        let blob = Self.bytes(300_000, salt: 5)
        let first = try store(server)
        var source = Pieces(pieces: [blob])
        let id = try await first.put(&source)
        first.close()
        try await server.restart()
        var reader = try await store(server).open(id)
        let kept = try await Self.drain(&reader)
        XCTAssertEqual(kept, blob, "file storage kept it")
    }

    func testAnUnknownOrDeletedBlobIsNotFound() async throws {
        let server = try await startNatsServer(jetStream: true)
        let store = try store(server)
        await assertThrowsAsync({ try await store.open(BlobID.random()) }) { error in XCTAssertEqual((error as? SnapshotTransferError)?.code, .blobNotFound) }
        var source = Pieces(pieces: [Self.bytes(5_000)])
        let id = try await store.put(&source)
        try await store.delete(id)
        await assertThrowsAsync({ try await store.open(id) }) { error in XCTAssertEqual((error as? SnapshotTransferError)?.code, .blobNotFound) }
        XCTAssertEqual(try store.streamSettings().messages, 0)
    }

    func testRejectAChunkThatIsNotTheOneItsManifestNames() async throws {
        let server = try await startNatsServer(config: "max_payload: 65536", jetStream: true)
        let store = try store(server)
        var source = Pieces(pieces: [Self.bytes(150_000)])
        let id = try await store.put(&source)
        try store.publish(Self.bytes(store.chunkBytes, salt: 9), subject: store.subject(id, chunk: 1), messageID: "forged")
        var reader = try await store.open(id)
        await assertThrowsAsync({ try await Self.drain(&reader) }) { error in XCTAssertEqual((error as? SnapshotTransferError)?.code, .blobStoreFailed) }
        try store.publish([1, 2, 3], subject: store.manifestSubject(id), messageID: "forged-manifest")
        await assertThrowsAsync({ try await store.open(id) }) { error in XCTAssertEqual((error as? SnapshotTransferError)?.code, .blobStoreFailed) }
    }

    func testAFailedPutLeavesNothingInTheStream() async throws {
        let server = try await startNatsServer(config: "max_payload: 65536", jetStream: true)
        let store = try store(server)
        var failing = Pieces(pieces: Array(repeating: Self.bytes(70_000), count: 4), failAt: 3)
        await assertThrowsAsync({ try await store.put(&failing) }) { error in XCTAssertEqual((error as? SyncKernelError)?.code, .storeClosed) }
        XCTAssertEqual(try store.streamSettings().messages, 0, "the chunks it published were purged")
        var options = JetStreamBlobOptions()
        options.maxBlobBytes = 100_000
        let bounded = try self.store(server, options: options)
        var large = Pieces(pieces: Array(repeating: Self.bytes(60_000), count: 2))
        await assertThrowsAsync({ try await bounded.put(&large) }) { error in XCTAssertEqual((error as? SyncKernelError)?.code, .limitExceeded) }
        XCTAssertEqual(try store.streamSettings().messages, 0)
    }

    func testRejectOptionsTheServerWouldNotTake() async throws {
        for change: (inout JetStreamBlobOptions) -> Void in [{ $0.streamName = "" }, { $0.streamName = "a.b" }, { $0.subjectPrefix = "a.*" },
                                                             { $0.timeToLive = .zero }, { $0.duplicateWindow = .seconds(90_000) },
                                                             { $0.chunkBytes = 10 }, { $0.publishAttempts = 0 }] {
            var options = JetStreamBlobOptions()
            change(&options)
            XCTAssertThrowsError(try options.validated()) { error in
                XCTAssertEqual((error as? RelayError)?.code, .invalidRelayConfiguration)
            }
        }
    }

    func testASnapshotTravelsThroughJetStream() async throws {
        let server = try await startNatsServer(config: "max_payload: 262144", jetStream: true)
        let sending = try store(server)
        let namespaces = try NamespaceSet([NotebookNamespace.self])
        let source = try KernelStore(path: directory + "/source.sqlite", namespaces: namespaces, entropy: .seeded(1))
        defer { source.close() }
        try source.configureDevice(try DeviceKeyPair(seed: Array(repeating: 1, count: 32)).deviceID)
        var random = SeededGenerator(seed: 41)
        let stamp = Date(timeIntervalSince1970: 1_790_000_000)
        let notes = (0..<3_000).map { index in
            Note(id: random.bytes(16), title: "Note \(index)", body: String(repeating: "word ", count: Int(random.next() % 40)),
                 createdAt: stamp, updatedAt: stamp)
        }
        try source.write(NotebookNamespace.self) { tx throws(SyncKernelError) in for note in notes { try tx.save(note) } }
        try source.write(NotebookNamespace.self) { tx throws(SyncKernelError) in for note in notes.prefix(100) { try tx.delete(key: note.id) } }
        let account = SHA256.hash(domain: Array("jetstream-test.account".utf8))
        let request = try SyncRequest(requestID: SyncRequestID.random(), replyKey: Array(repeating: 3, count: 32), timestamp: 0)
        var sender = SnapshotSender(blobStore: sending, entropy: .seeded(2))
        sender.chunkBytes = 64 << 10
        let answer = await sender.answer(request, store: source, account: account)
        guard case .offer(let offer) = answer.message else { return XCTFail("no offer: \(String(describing: answer.error))") }
        let target = try KernelStore(path: directory + "/target.sqlite", namespaces: namespaces, entropy: .seeded(3))
        defer { target.close() }
        try target.configureDevice(try DeviceKeyPair(seed: Array(repeating: 2, count: 32)).deviceID)
        let receiver = SnapshotReceiver(blobStore: try store(server), spoolDirectory: directory)
        let result = await receiver.absorb(offer, into: target, account: account)
        XCTAssertEqual(result.ack, .absorbed(offer.requestID), "\(String(describing: result.error))")
        XCTAssertEqual(target.stateDigest(), source.stateDigest())
        XCTAssertEqual(target.itemCounts(), [2_900])
        XCTAssertEqual(try target.tombstones(namespace: NotebookNamespace.name).count, 100)
        try target.verifyStructures()
        try await sending.delete(offer.blobID)
        let gone = await receiver.absorb(offer, into: target, account: account)
        XCTAssertEqual(gone.ack, .failed(offer.requestID, .blobUnavailable))
    }
}
