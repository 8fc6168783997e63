import Foundation
@testable import SnapshotTransfer
@testable import SyncEnvelope
import SyncKernel
import XCTest

/// The transfer messages' canonical encodings, pinned by golden vectors written from the layouts
/// (`Fixtures/transfer`, made once by a script independent of the encoders), and their refusal
/// of every other byte string; and the account check on an opened envelope.
final class TransferMessageTests: XCTestCase {
    static let requestID = try? SyncRequestID(bytes: Array(0x10..<0x20))
    static let blobID = try? BlobID(bytes: Array(0xa0..<0xb0))

    static func messages() throws -> [(String, TransferMessage)] {
        let id = try XCTUnwrap(requestID)
        let blob = try XCTUnwrap(blobID)
        let reply = Array(UInt8(0x40)..<0x60)
        let key = Array(UInt8(0x60)..<0x80)
        let sha = [UInt8](repeating: 0x5a, count: 32)
        return [
            ("request_both", .request(try SyncRequest(requestID: id, replyKey: reply, timestamp: 1_790_000_123_456,
                                                      accepts: [.aes256GCM, .xChaCha20Poly1305]))),
            ("request_xchacha", .request(try SyncRequest(requestID: id, replyKey: reply, timestamp: 0, accepts: []))),
            ("offer_aes", .offer(try SyncOffer(requestID: id, blobID: blob, algorithm: .aes256GCM, key: key,
                                               nonce: Array(0xc0..<0xcc), sha256: sha, size: 123_456_789))),
            ("offer_xchacha", .offer(try SyncOffer(requestID: id, blobID: blob, algorithm: .xChaCha20Poly1305, key: key,
                                                   nonce: Array(0xc0..<0xd8), sha256: sha, size: 29))),
            ("decline_busy", .decline(SyncDecline(requestID: id, reason: .busy))),
            ("decline_unwilling", .decline(SyncDecline(requestID: id, reason: .unwilling))),
            ("broken_upload", .broken(try SyncBroken(requestID: id, stage: .upload, code: "SK609"))),
            ("broken_export", .broken(SyncBroken(requestID: id, stage: .export, error: SyncKernelError(.storeClosed, "detail stays home")))),
            ("ack_ok", .ack(.absorbed(id))),
            ("ack_hash_mismatch", .ack(.failed(id, .hashMismatch))),
        ]
    }

    func testEveryMessageEncodesToItsGoldenVectorAndBack() throws {
        for (name, message) in try Self.messages() {
            let golden = try Fixture.bytes("transfer/\(name)")
            XCTAssertEqual(message.encoded(), golden, name)
            XCTAssertEqual(try TransferMessage(decoding: golden), message, name)
            XCTAssertTrue(TransferMessage.isTransferMessage(golden), name)
            XCTAssertEqual(message.requestID, Self.requestID, name)
        }
        XCTAssertEqual(SyncRequest.byteCount, 63)
        XCTAssertEqual(SyncDecline.byteCount, 23)
        XCTAssertEqual(SyncBroken.byteCount, 28)
        XCTAssertEqual(SyncAck.byteCount, 24)
    }

    func testAFrameIsNotATransferMessage() throws {
        let frame = SyncFrame(account: SnapshotWorld.account, schema: SchemaFingerprint(value: 1), body: .heartbeat).encoded()
        XCTAssertFalse(TransferMessage.isTransferMessage(frame))
        XCTAssertThrowsError(try TransferMessage(decoding: frame)) { error in
            XCTAssertEqual((error as? SnapshotTransferError)?.code, .unsupportedTransferMessage)
        }
    }

    func testRejectEveryTruncationOfEveryMessage() throws {
        for (name, message) in try Self.messages() {
            let bytes = message.encoded()
            for length in 0..<bytes.count {
                XCTAssertThrowsError(try TransferMessage(decoding: Array(bytes.prefix(length))), "\(name) cut at \(length)") { error in
                    let code = ErrorReport(error).name
                    XCTAssertTrue(code == "truncatedInput" || code == "unsupportedTransferMessage", "\(name) at \(length): \(code)")
                }
            }
        }
    }

    func testRejectTrailingAndOversizedInput() throws {
        for (name, message) in try Self.messages() {
            let bytes = message.encoded()
            XCTAssertThrowsError(try TransferMessage(decoding: bytes + [0]), name) { error in
                XCTAssertEqual((error as? SyncKernelError)?.code, .trailingBytes, name)
            }
            XCTAssertThrowsError(try TransferMessage(decoding: bytes + [UInt8](repeating: 0, count: 300)), name) { error in
                XCTAssertEqual((error as? SyncKernelError)?.code, .limitExceeded, name)
            }
        }
    }

    func testRejectAnotherMagicVersionOrKind() throws {
        let ack = try XCTUnwrap(Self.messages().last?.1).encoded()
        for (index, value) in [(0, UInt8(0x54)), (3, 0x47), (4, 2), (5, 0), (5, 6), (5, 0xff)] {
            var bytes = ack
            bytes[index] = value
            XCTAssertThrowsError(try TransferMessage(decoding: bytes), "byte \(index) = \(value)") { error in
                XCTAssertEqual((error as? SnapshotTransferError)?.code, .unsupportedTransferMessage)
            }
        }
        var offerAsAck = ack
        offerAsAck[5] = TransferFormat.Kind.offer.rawValue
        XCTAssertThrowsError(try TransferMessage(decoding: offerAsAck))
    }

    func testRejectNonCanonicalFields() throws {
        let messages = Dictionary(uniqueKeysWithValues: try Self.messages())
        func rejects(_ name: String, at index: Int, _ value: UInt8, _ code: String, line: UInt = #line) throws {
            var bytes = try XCTUnwrap(messages[name]).encoded()
            bytes[index] = value
            XCTAssertThrowsError(try TransferMessage(decoding: bytes), "\(name)[\(index)] = \(value)", line: line) { error in
                XCTAssertEqual(ErrorReport(error).name, code, "\(name)[\(index)] = \(value)", line: line)
            }
        }
        try rejects("request_both", at: 62, 0b10, "nonCanonicalEncoding")
        try rejects("request_both", at: 62, 0b111, "nonCanonicalEncoding")
        try rejects("request_both", at: 62, 0, "nonCanonicalEncoding")
        try rejects("request_both", at: 54, 0x80, "limitExceeded")
        try rejects("offer_aes", at: 38, 3, "unsupportedAlgorithm")
        try rejects("offer_aes", at: 38, 0, "unsupportedAlgorithm")
        try rejects("offer_aes", at: 38, 1, "truncatedInput")
        try rejects("offer_xchacha", at: 38, 2, "trailingBytes")
        try rejects("offer_aes", at: 115, 0x80, "limitExceeded")
        try rejects("decline_busy", at: 22, 0, "nonCanonicalEncoding")
        try rejects("decline_busy", at: 22, 3, "nonCanonicalEncoding")
        try rejects("broken_upload", at: 22, 0, "nonCanonicalEncoding")
        try rejects("broken_upload", at: 22, 4, "nonCanonicalEncoding")
        try rejects("broken_upload", at: 23, UInt8(ascii: "X"), "nonCanonicalEncoding")
        try rejects("broken_upload", at: 27, UInt8(ascii: "a"), "nonCanonicalEncoding")
        try rejects("broken_upload", at: 27, 0xff, "nonCanonicalEncoding")
        try rejects("ack_ok", at: 23, 1, "nonCanonicalEncoding")
        try rejects("ack_ok", at: 22, 2, "nonCanonicalEncoding")
        try rejects("ack_hash_mismatch", at: 23, 0, "nonCanonicalEncoding")
        try rejects("ack_hash_mismatch", at: 23, 10, "nonCanonicalEncoding")
        var small = try XCTUnwrap(messages["offer_xchacha"]).encoded()
        small[small.count - 1] = 28
        XCTAssertThrowsError(try TransferMessage(decoding: small)) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .limitExceeded, "a size below the smallest sealed blob")
        }
        var zeroKey = try XCTUnwrap(messages["request_xchacha"]).encoded()
        for index in 22..<54 { zeroKey[index] = 0 }
        XCTAssertThrowsError(try TransferMessage(decoding: zeroKey)) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .nonCanonicalEncoding, "an all-zero reply key")
        }
    }

    func testRejectValuesTheEncodingCannotCarry() throws {
        let id = try XCTUnwrap(Self.requestID)
        XCTAssertThrowsError(try SyncRequestID(bytes: [1, 2, 3]))
        XCTAssertThrowsError(try BlobID(bytes: Array(repeating: 1, count: 17)))
        XCTAssertNil(BlobID(hex: "../../etc/passwd"))
        XCTAssertNil(BlobID(hex: String(repeating: "g", count: 32)))
        XCTAssertThrowsError(try SyncRequest(requestID: id, replyKey: Array(repeating: 1, count: 31), timestamp: 0))
        XCTAssertThrowsError(try SyncRequest(requestID: id, replyKey: Array(repeating: 1, count: 32), timestamp: -1))
        XCTAssertThrowsError(try SyncOffer(requestID: id, blobID: BlobID.random(), algorithm: .aes256GCM,
                                           key: Array(repeating: 1, count: 32), nonce: Array(repeating: 1, count: 24),
                                           sha256: Array(repeating: 1, count: 32), size: 100))
        XCTAssertThrowsError(try SyncBroken(requestID: id, stage: .seal, code: "SK5011"))
    }

    func testAnOfferNeverShowsItsKey() throws {
        let messages = Dictionary(uniqueKeysWithValues: try Self.messages())
        guard case .offer(let offer) = try XCTUnwrap(messages["offer_aes"]) else { return XCTFail("not an offer") }
        var dumped = ""
        dump(offer, to: &dumped)
        for rendering in ["\(offer)", String(reflecting: offer), dumped] {
            XCTAssertFalse(rendering.contains(Hex.encode(offer.key)), rendering)
            XCTAssertFalse(rendering.contains(Hex.encode(offer.key.prefix(4))), rendering)
        }
    }

    func testTheAlgorithmIsAESOnlyWhenBothSidesRunIt() {
        XCTAssertEqual(SealingAlgorithm.choose(accepted: [.xChaCha20Poly1305, .aes256GCM], aesAvailable: true), .aes256GCM)
        XCTAssertEqual(SealingAlgorithm.choose(accepted: [.xChaCha20Poly1305, .aes256GCM], aesAvailable: false), .xChaCha20Poly1305)
        XCTAssertEqual(SealingAlgorithm.choose(accepted: [.xChaCha20Poly1305], aesAvailable: true), .xChaCha20Poly1305)
        XCTAssertTrue(SealingAlgorithm.openable.contains(.xChaCha20Poly1305))
    }

    // MARK: the account check

    func testRejectAnOfferFromAnotherAccountAtTheGate() throws {
        let mine = try AccountWorld(devices: 2, seed: 21)
        let theirs = try AccountWorld(devices: 2, seed: 22)
        let messages = Dictionary(uniqueKeysWithValues: try Self.messages())
        let receiver = try mine.keys(0)
        let gate = try mine.gate(0)
        for name in ["offer_aes", "request_both"] {
            let message = try XCTUnwrap(messages[name])
            let stranger = try theirs.envelope(message.encoded(), from: 1, to: mine.devices[0])
            XCTAssertEqual(TransferMessage.accept(gate.open(stranger, now: AccountWorld.now), account: receiver.userIDHash),
                           .dropped(.envelope(.foreignAccount)), name)
            let sibling = try mine.sealer(1).seal(message.encoded(), to: receiver.device, now: AccountWorld.now)
            XCTAssertEqual(TransferMessage.accept(gate.open(sibling.bytes, now: AccountWorld.now), account: receiver.userIDHash),
                           .accepted(sender: try mine.keys(1).device, message: message), name)
        }
    }

    func testRejectAnAcceptedEnvelopeWhoseCertificateNamesAnotherAccount() throws {
        let messages = Dictionary(uniqueKeysWithValues: try Self.messages())
        let world = try SnapshotWorld(seed: 23)
        for name in ["request_both", "offer_aes"] {
            let opened = OpenedEnvelope(sender: try world.device(1), account: SnapshotWorld.otherAccount,
                                        frame: try XCTUnwrap(messages[name]).encoded(), frameID: Array(repeating: 1, count: 16),
                                        timestamp: 0)
            XCTAssertEqual(TransferMessage.accept(.accepted(opened), account: SnapshotWorld.account), .dropped(.foreignAccount), name)
        }
        let garbage = OpenedEnvelope(sender: try world.device(1), account: SnapshotWorld.account, frame: [1, 2, 3],
                                     frameID: Array(repeating: 1, count: 16), timestamp: 0)
        XCTAssertEqual(TransferMessage.accept(.accepted(garbage), account: SnapshotWorld.account),
                       .dropped(.malformed(code: "SK214")))
        XCTAssertEqual(TransferMessage.accept(.dropped(.replayed), account: SnapshotWorld.account), .dropped(.envelope(.replayed)))
    }

    /// An error a host's own blob store throws, of no stable code.
    private struct ForeignFailure: Error {}

    func testAFailureIsReportedByItsStableCodeWhateverItsModule() throws {
        let id = SyncRequestID.random()
        XCTAssertEqual(SyncBroken(requestID: id, stage: .export, error: SyncKernelError(.storageFull)).code, "SK508")
        XCTAssertEqual(SyncBroken(requestID: id, stage: .upload, error: SnapshotTransferError(.blobNotFound)).code, "SK608")
        XCTAssertEqual(SyncBroken(requestID: id, stage: .upload, error: ForeignFailure()).code, "SK609",
                       "an error of no stable code is the blob store's failure")
        XCTAssertEqual(SyncAck.Reason(SnapshotTransferError(.snapshotHashMismatch)), .hashMismatch)
        XCTAssertEqual(SyncAck.Reason(SnapshotTransferError(.malformedSnapshot)), .malformedSnapshot)
        XCTAssertEqual(SyncAck.Reason(SyncKernelError(.truncatedInput)), .malformedSnapshot)
        XCTAssertEqual(SyncAck.Reason(SyncKernelError(.foreignAccount)), .schemaMismatch)
        XCTAssertEqual(SyncAck.Reason(SyncKernelError(.storeClosed)), .importFailed)
        XCTAssertEqual(SyncAck.Reason(ForeignFailure()), .downloadFailed)
    }
}
