import Foundation
import FleetSimulation
import NotebookNamespace
@testable import SnapshotTransfer
import SyncKernel
import XCTest

/// The whole transfer over the folder blob store: a sibling answers a request with an offer, the
/// requester absorbs it; and every way it fails, with the store left as it was.
final class SnapshotTransferTests: XCTestCase {
    private var world: SnapshotWorld!
    private var clock = VirtualWallClock()
    private var blobs: FolderBlobStore!

    override func setUpWithError() throws {
        world = try SnapshotWorld(seed: 31)
        clock = VirtualWallClock()
        blobs = try FolderBlobStore(directory: world.directory + "/blobs", clock: clock)
    }

    override func tearDownWithError() throws {
        world = nil
    }

    private func request(accepts: Set<SealingAlgorithm> = SealingAlgorithm.openable) throws -> SyncRequest {
        try SyncRequest(requestID: SyncRequestID.random(), replyKey: Array(repeating: 7, count: 32), timestamp: clock.millisecondsSince1970,
                        accepts: accepts)
    }

    private func offer(from store: KernelStore, accepts: Set<SealingAlgorithm> = SealingAlgorithm.openable,
                       chunkBytes: Int = 64 << 10) async throws -> SyncOffer {
        var sender = SnapshotSender(blobStore: blobs, entropy: .seeded(world.seed))
        sender.chunkBytes = chunkBytes
        let result = await sender.answer(try request(accepts: accepts), store: store, account: SnapshotWorld.account)
        guard case .offer(let offer) = result.message else {
            XCTFail("no offer: \(String(describing: result.error))")
            throw result.error ?? SnapshotTransferError(.blobStoreFailed)
        }
        return offer
    }

    private func receiver() -> SnapshotReceiver {
        var receiver = SnapshotReceiver(blobStore: blobs, spoolDirectory: world.directory)
        receiver.rowsPerTransaction = 100
        return receiver
    }

    private func spoolFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: world.directory).filter { $0.hasSuffix(".spool") }
    }

    func testASnapshotTravelsSealedThroughTheBlobStoreWithBothAlgorithms() async throws {
        let source = try world.richNotebook("source", rows: 600)
        for accepts: Set<SealingAlgorithm> in [[.xChaCha20Poly1305], [.xChaCha20Poly1305, .aes256GCM]] {
            let offer = try await offer(from: source, accepts: accepts)
            XCTAssertEqual(offer.algorithm, accepts.contains(.aes256GCM) ? .aes256GCM : .xChaCha20Poly1305)
            let target = try world.store("target-\(offer.algorithm.rawValue)", device: 2)
            var phases: [SnapshotProgress] = []
            let result = await receiver().absorb(offer, into: target, account: SnapshotWorld.account) { phases.append($0) }
            XCTAssertEqual(result.ack, .absorbed(offer.requestID), "\(String(describing: result.error))")
            XCTAssertNil(result.error)
            XCTAssertEqual(target.stateDigest(), source.stateDigest())
            try target.verifyStructures()
            XCTAssertEqual(try SnapshotWorld.bookkeeping(of: target), try SnapshotWorld.bookkeeping(of: source))
            XCTAssertEqual(result.report.sealedBytes, offer.size)
            XCTAssertEqual(result.report.outcome.rowsImported, 600 - 600 / 20, "every row but those deleted outright")
            for phase in [SnapshotProgress.Phase.downloading, .verifying, .importing] {
                let reports = phases.filter { $0.phase == phase }
                XCTAssertFalse(reports.isEmpty, "\(phase) reported")
                XCTAssertEqual(reports.map(\.bytes), reports.map(\.bytes).sorted(), "\(phase) bytes never go down")
                XCTAssertEqual(reports.last?.bytes, offer.size, "\(phase) ends at the blob's size")
            }
            XCTAssertEqual(phases.last?.rows, result.report.rows)
            XCTAssertEqual(try spoolFiles(), [], "the spool file is gone")
        }
    }

    func testTheSenderReportsProgressAndEveryOfferHasItsOwnKey() async throws {
        let source = try world.richNotebook("source", rows: 200)
        var sender = SnapshotSender(blobStore: blobs, entropy: .seeded(world.seed))
        sender.chunkBytes = 4_096
        var progress: [SnapshotProgress] = []
        let first = await sender.answer(try request(), store: source, account: SnapshotWorld.account) { progress.append($0) }
        let second = await sender.answer(try request(), store: source, account: SnapshotWorld.account)
        guard case .offer(let one) = first.message, case .offer(let two) = second.message else { return XCTFail("no offers") }
        XCTAssertNotEqual(one.key, two.key)
        XCTAssertNotEqual(one.nonce, two.nonce)
        XCTAssertNotEqual(one.blobID, two.blobID)
        XCTAssertNotEqual(one.sha256, two.sha256)
        XCTAssertEqual(progress.map(\.bytes), progress.map(\.bytes).sorted())
        XCTAssertEqual(progress.last?.bytes, one.size)
        XCTAssertEqual(progress.last?.rows, first.report.rows)
        XCTAssertEqual(first.report.rows, 200 - 200 / 20)
        XCTAssertEqual(first.report.sealedBytes, one.size)
    }

    func testRejectATamperedBlobBeforeDecryptingAndImportNothing() async throws {
        let source = try world.richNotebook("source", rows: 300)
        let offer = try await offer(from: source)
        let path = blobs.path(of: offer.blobID)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[FolderBlobStore.headerBytes + 5_000] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let target = try world.store("target", device: 2)
        let empty = target.stateDigest()
        let result = await receiver().absorb(offer, into: target, account: SnapshotWorld.account)
        XCTAssertEqual(result.ack, .failed(offer.requestID, .hashMismatch))
        XCTAssertEqual((result.error as? SnapshotTransferError)?.code, .snapshotHashMismatch)
        XCTAssertEqual(result.report.verifyTime, .zero, "nothing was decrypted")
        XCTAssertEqual(target.stateDigest(), empty)
        XCTAssertEqual(target.itemCounts(), [0])
        XCTAssertEqual(try target.tombstones(namespace: NotebookNamespace.name), [])
        XCTAssertEqual(try spoolFiles(), [])
    }

    func testRejectAnOfferWhoseHashIsNotTheBlobs() async throws {
        let source = try world.richNotebook("source", rows: 100)
        let genuine = try await offer(from: source)
        let forged = try SyncOffer(requestID: genuine.requestID, blobID: genuine.blobID, algorithm: genuine.algorithm, key: genuine.key,
                                   nonce: genuine.nonce, sha256: genuine.sha256.map { $0 ^ 1 }, size: genuine.size)
        let target = try world.store("target", device: 2)
        let refused = await receiver().absorb(forged, into: target, account: SnapshotWorld.account)
        XCTAssertEqual(refused.ack, .failed(forged.requestID, .hashMismatch))
        XCTAssertEqual(target.itemCounts(), [0])
    }

    func testRejectATruncatedBlobAndImportNothing() async throws {
        let source = try world.richNotebook("source", rows: 300)
        let offer = try await offer(from: source)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: blobs.path(of: offer.blobID)))
        try handle.truncate(atOffset: UInt64(FolderBlobStore.headerBytes) + UInt64(offer.size) - 1_000)
        try handle.close()
        let target = try world.store("target", device: 2)
        let result = await receiver().absorb(offer, into: target, account: SnapshotWorld.account)
        XCTAssertEqual(result.ack, .failed(offer.requestID, .hashMismatch))
        XCTAssertEqual(result.report.sealedBytes, 0, "a stored size that is not the offer's is refused before fetching")
        XCTAssertEqual(target.itemCounts(), [0])
    }

    func testRejectABlobThatMatchesItsHashButWasSealedWrong() async throws {
        let source = try world.richNotebook("source", rows: 100)
        let genuine = try await offer(from: source)
        var reader = try await blobs.open(genuine.blobID)
        var sealed = try await PieceSource.drain(blob: &reader)
        sealed[SealedBlobFormat.headerBytes + 10] ^= 1
        var altered = PieceSource([sealed])
        let id = try await blobs.put(&altered)
        var hash = StreamingSHA256()
        hash.update(sealed)
        let offer = try SyncOffer(requestID: genuine.requestID, blobID: id, algorithm: genuine.algorithm, key: genuine.key,
                                  nonce: genuine.nonce, sha256: hash.finish(), size: genuine.size)
        let target = try world.store("target", device: 2)
        let result = await receiver().absorb(offer, into: target, account: SnapshotWorld.account)
        XCTAssertEqual(result.ack, .failed(offer.requestID, .unauthentic))
        XCTAssertEqual(result.report.importTime, .zero, "every chunk is checked before anything is imported")
        XCTAssertEqual(target.itemCounts(), [0])
    }

    func testRejectAnExpiredBlob() async throws {
        let source = try world.richNotebook("source", rows: 100)
        let offer = try await offer(from: source)
        clock.advance(by: .seconds(24 * 3_600))
        let target = try world.store("target", device: 2)
        let result = await receiver().absorb(offer, into: target, account: SnapshotWorld.account)
        XCTAssertEqual(result.ack, .failed(offer.requestID, .blobUnavailable))
        XCTAssertEqual((result.error as? SnapshotTransferError)?.code, .blobNotFound)
        XCTAssertFalse(FileManager.default.fileExists(atPath: blobs.path(of: offer.blobID)), "the expired blob was removed")
        XCTAssertEqual(target.itemCounts(), [0])
    }

    func testRejectAnOfferAboveTheSizeThisDeviceAccepts() async throws {
        let source = try world.richNotebook("source", rows: 100)
        let offer = try await offer(from: source)
        var small = receiver()
        small.maxBlobBytes = offer.size - 1
        let target = try world.store("target", device: 2)
        let result = await small.absorb(offer, into: target, account: SnapshotWorld.account)
        XCTAssertEqual(result.ack, .failed(offer.requestID, .tooLarge))
        XCTAssertEqual(result.report.sealedBytes, 0)
        XCTAssertEqual(try spoolFiles(), [], "nothing was fetched")
    }

    func testAReImportOfTheSameOfferChangesNothing() async throws {
        let source = try world.richNotebook("source", rows: 300)
        let offer = try await offer(from: source)
        let target = try world.store("target", device: 2)
        let first = await receiver().absorb(offer, into: target, account: SnapshotWorld.account)
        XCTAssertEqual(first.ack, .absorbed(offer.requestID))
        let digest = target.stateDigest()
        let counters = target.changeCounters()
        let books = try SnapshotWorld.bookkeeping(of: target)
        let second = await receiver().absorb(offer, into: target, account: SnapshotWorld.account)
        XCTAssertEqual(second.ack, .absorbed(offer.requestID))
        XCTAssertEqual(second.report.outcome.keysImported, 0)
        XCTAssertEqual(second.report.outcome.keysPresent, first.report.outcome.keysImported)
        XCTAssertEqual(target.stateDigest(), digest)
        XCTAssertEqual(target.changeCounters(), counters)
        XCTAssertEqual(try SnapshotWorld.bookkeeping(of: target), books)
    }

    func testAnExportFailureIsReportedBrokenNotDeclined() async throws {
        let source = try world.richNotebook("source", rows: 50)
        source.close()
        let request = try request()
        let result = await SnapshotSender(blobStore: blobs, entropy: .seeded(world.seed)).answer(request, store: source, account: SnapshotWorld.account)
        XCTAssertEqual(result.message, .broken(try SyncBroken(requestID: request.requestID, stage: .export, code: "SK503")))
        XCTAssertEqual((result.error as? SyncKernelError)?.code, .storeClosed)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: blobs.directory), [], "no blob left behind")
        let encoded = result.message.encoded()
        guard case .broken(let broken) = try TransferMessage(decoding: encoded) else { return XCTFail("not a failure report") }
        XCTAssertEqual(broken.stage, .export)
        XCTAssertNotEqual(try TransferMessage(decoding: encoded), .decline(SyncDecline(requestID: request.requestID, reason: .busy)))
    }

    func testAnUploadFailureIsReportedBrokenAtItsStage() async throws {
        let source = try world.richNotebook("source", rows: 200)
        let full = try FolderBlobStore(directory: world.directory + "/small", clock: clock, maxBlobBytes: 10_000)
        let request = try request()
        var sender = SnapshotSender(blobStore: full, entropy: .seeded(world.seed))
        sender.chunkBytes = 4_096
        let result = await sender.answer(request, store: source, account: SnapshotWorld.account)
        XCTAssertEqual(result.message, .broken(try SyncBroken(requestID: request.requestID, stage: .upload, code: "SK104")))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: full.directory), [])
    }

    func testAtScaleAFiftyThousandRowStoreOfEveryNamespaceArrivesWithTheSameDigest() async throws {
        var config = SimulationConfig()
        config.devices = 2
        config.rows = 54_000
        config.differences = 400
        config.namespaces = ["all"]
        config.seed = 13
        config.directory = world.directory + "/fleet"
        try FileManager.default.createDirectory(atPath: config.directory ?? "", withIntermediateDirectories: true)
        let simulated = try FleetSimulation.run(config)
        XCTAssertTrue(simulated.converged)
        let namespaces = try NamespaceSet(FleetSimulation.standardNamespaces)
        let source = try KernelStore(path: (config.directory ?? "") + "/device-0.sqlite", namespaces: namespaces)
        defer { source.close() }
        XCTAssertEqual(source.itemCounts().count, 13)
        XCTAssertGreaterThanOrEqual(source.itemCounts().reduce(0, +), 50_000)
        let tombstones = try source.namespaces.names.reduce(0) { $0 + (try source.tombstones(namespace: $1).count) }
        XCTAssertGreaterThan(tombstones, 0, "the fleet deleted rows")
        var sender = SnapshotSender(blobStore: blobs, entropy: .seeded(world.seed))
        sender.chunkBytes = 256 << 10
        let answer = await sender.answer(try request(), store: source, account: SnapshotWorld.account)
        guard case .offer(let offer) = answer.message else { return XCTFail("no offer: \(String(describing: answer.error))") }
        let target = try KernelStore(path: world.directory + "/absorbed.sqlite", namespaces: namespaces)
        defer { target.close() }
        try target.configureDevice(try world.device(9))
        var receiver = SnapshotReceiver(blobStore: blobs, spoolDirectory: world.directory)
        receiver.rowsPerTransaction = 5_000
        let result = await receiver.absorb(offer, into: target, account: SnapshotWorld.account)
        XCTAssertEqual(result.ack, .absorbed(offer.requestID), "\(String(describing: result.error))")
        XCTAssertEqual(target.stateDigest(), source.stateDigest())
        XCTAssertEqual(target.itemCounts(), source.itemCounts())
        try target.verifyStructures()
        XCTAssertEqual(try target.recomputedStateDigest(), source.stateDigest())
        XCTAssertEqual(result.report.deletes, Int64(tombstones))
        XCTAssertEqual(result.report.outcome.keysRefused, 0)
    }
}
