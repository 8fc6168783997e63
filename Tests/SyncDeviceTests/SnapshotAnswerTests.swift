import SyncDevice
import XCTest

/// A snapshot answer as the device's events tell it keeps what an app may show (the size, the
/// algorithm, the reasons, the stage and code of a failure) and nothing that fetches or opens the
/// blob.
final class SnapshotAnswerTests: XCTestCase {
    private func offer() throws -> SyncOffer {
        try SyncOffer(requestID: .random(), blobID: .random(), algorithm: .xChaCha20Poly1305,
                      key: [UInt8](repeating: 0xAB, count: SealingAlgorithm.keyBytes),
                      nonce: [UInt8](repeating: 0xCD, count: SealingAlgorithm.xChaCha20Poly1305.nonceBytes),
                      sha256: [UInt8](repeating: 0xEF, count: 32), size: 4_096)
    }

    func testAnOfferIsToldByItsSizeAndAlgorithmAlone() throws {
        let offer = try offer()
        let answer = SnapshotAnswer(TransferMessage.offer(offer))
        XCTAssertEqual(answer, .offered(bytes: 4_096, algorithm: "XChaCha20-Poly1305"))
        let event = try SyncDeviceEvent.snapshotAnswered(peer: DeviceID(publicKey: [UInt8](repeating: 7, count: 32)), answer: answer)
        let told = event.json() + String(reflecting: event)
        for secret in [offer.key, offer.nonce, offer.sha256, offer.blobID.bytes] {
            let hex = secret.map { String(format: "%02x", $0) }.joined()
            XCTAssertFalse(told.lowercased().contains(hex), "the event tells no key, nonce, hash or blob id: \(told)")
        }
        XCTAssertEqual(SnapshotAnswer(SnapshotRequestSession.Answer.offered(offer)), answer)
    }

    func testEveryTransferReasonHasItsOwnWord() {
        let refusals = Set(SyncAck.Reason.allCases.map(SnapshotAnswer.Refusal.init))
        XCTAssertEqual(refusals.count, SyncAck.Reason.allCases.count)
        XCTAssertEqual(Set(SyncDecline.Reason.allCases.map(SnapshotAnswer.Decline.init)).count, SyncDecline.Reason.allCases.count)
        XCTAssertEqual(Set(SyncBroken.Stage.allCases.map(SnapshotAnswer.Stage.init)).count, SyncBroken.Stage.allCases.count)
        XCTAssertEqual(SnapshotAnswer.Refusal(.blobUnavailable).rawValue, "blobUnavailable", "the word the event JSON prints")
    }

    func testAFailureKeepsItsStageAndCodeAndAnAbandonItsReason() throws {
        let broken = try SyncBroken(requestID: .random(), stage: .upload, code: "SK609")
        XCTAssertEqual(SnapshotAnswer(TransferMessage.broken(broken)), .broken(stage: .upload, code: "SK609"))
        XCTAssertEqual(SnapshotAnswer(SnapshotRequestSession.Answer.abandoned(.hashMismatch)), .abandoned(.hashMismatch))
        XCTAssertEqual(SnapshotAnswer(SnapshotRequestSession.Answer.declined(.busy)), .declined(.busy))
        let json = try SyncDeviceEvent.snapshotAcknowledged(peer: DeviceID(publicKey: [UInt8](repeating: 1, count: 32)),
                                                        refusal: .tooLarge).json()
        XCTAssertTrue(json.contains("\"ok\":false") && json.contains("\"reason\":\"tooLarge\""), json)
    }
}
