@testable import SnapshotTransfer
import SyncKernel
import XCTest

/// The requester's schedule on a virtual clock: re-sends every 5 s up to 7 times, only the first
/// waking, a real timeout, declines and failures kept apart, offers from strangers or for other
/// requests ignored.
final class SnapshotRequestSessionTests: XCTestCase {
    private var world: SnapshotWorld!
    private let start: Int64 = 1_790_000_000_000

    override func setUpWithError() throws {
        world = try SnapshotWorld(seed: 51)
    }

    override func tearDownWithError() throws {
        world = nil
    }

    private func request(_ byte: UInt8 = 1) throws -> SyncRequest {
        try SyncRequest(requestID: SyncRequestID(bytes: Array(repeating: byte, count: 16)), replyKey: Array(repeating: 9, count: 32),
                        timestamp: start)
    }

    private func offer(for request: SyncRequest) throws -> SyncOffer {
        try SyncOffer(requestID: request.requestID, blobID: BlobID(bytes: Array(repeating: 2, count: 16)), algorithm: .xChaCha20Poly1305,
                      key: Array(repeating: 3, count: 32), nonce: Array(repeating: 4, count: 24), sha256: Array(repeating: 5, count: 32),
                      size: 100)
    }

    func testItSendsEveryFiveSecondsSevenTimesWakingOnlyOnceThenTimesOut() throws {
        let siblings = [try world.device(1), try world.device(2)]
        var session = SnapshotRequestSession(request: try request(), siblings: siblings, now: start)
        var log: [(Int64, SnapshotRequestSession.Send)] = []
        var now = start
        while let deadline = session.nextDeadline(now: now) {
            now = deadline
            log += session.due(now: now).map { (now - start, $0) }
        }
        XCTAssertEqual(log.count, 14)
        for sibling in siblings {
            let mine = log.filter { $0.1.sibling == sibling }
            XCTAssertEqual(mine.map(\.0), [0, 5_000, 10_000, 15_000, 20_000, 25_000, 30_000])
            XCTAssertEqual(mine.map(\.1.wake), [true] + Array(repeating: false, count: 6))
            XCTAssertEqual(mine.map(\.1.attempt), Array(1...7))
        }
        XCTAssertEqual(now - start, 35_000)
        XCTAssertEqual(session.state(now: now), .timedOut)
        XCTAssertEqual(session.state(now: now - 1), .requesting)
        XCTAssertEqual(session.due(now: now + 60_000), [])
    }

    func testAnOfferEndsTheWaitAndTheNextOfferTakesOverWhenItFails() throws {
        let siblings = [try world.device(1), try world.device(2)]
        let request = try request()
        var session = SnapshotRequestSession(request: request, siblings: siblings, now: start)
        _ = session.due(now: start)
        let offer = try offer(for: request)
        XCTAssertTrue(session.receive(.offer(offer), from: siblings[1]))
        XCTAssertEqual(session.state(now: start + 1_000), .offered(sibling: siblings[1], offer: offer))
        XCTAssertEqual(session.due(now: start + 5_000), [], "no more sends once an offer is in")
        XCTAssertNil(session.nextDeadline(now: start + 5_000))
        XCTAssertFalse(session.receive(.decline(SyncDecline(requestID: request.requestID, reason: .busy)), from: siblings[1]),
                       "a sibling answers once")
        XCTAssertTrue(session.receive(.offer(offer), from: siblings[0]))
        session.abandon(offerFrom: siblings[1], reason: .hashMismatch)
        XCTAssertEqual(session.state(now: start + 1_000), .offered(sibling: siblings[0], offer: offer))
        session.abandon(offerFrom: siblings[0], reason: .unauthentic)
        XCTAssertEqual(session.state(now: start + 1_000), .refused)
        XCTAssertEqual(session.answers[siblings[1]], .abandoned(.hashMismatch))
    }

    func testDeclinedAndBrokenStayApartAndBothRefuse() throws {
        let siblings = [try world.device(1), try world.device(2), try world.device(3)]
        let request = try request()
        var session = SnapshotRequestSession(request: request, siblings: siblings, now: start)
        _ = session.due(now: start)
        let broken = try SyncBroken(requestID: request.requestID, stage: .upload, code: "SK609")
        XCTAssertTrue(session.receive(.decline(SyncDecline(requestID: request.requestID, reason: .busy)), from: siblings[0]))
        XCTAssertTrue(session.receive(.broken(broken), from: siblings[1]))
        XCTAssertEqual(session.state(now: start + 6_000), .requesting, "one sibling has not answered")
        XCTAssertEqual(session.due(now: start + 5_000).map(\.sibling), [siblings[2]], "only the silent one is asked again")
        XCTAssertTrue(session.receive(.decline(SyncDecline(requestID: request.requestID, reason: .unwilling)), from: siblings[2]))
        XCTAssertEqual(session.state(now: start + 6_000), .refused)
        XCTAssertEqual(session.answers[siblings[0]], .declined(.busy))
        XCTAssertEqual(session.answers[siblings[1]], .broken(broken))
    }

    func testRejectAnswersForAnotherRequestOrFromAStranger() throws {
        let siblings = [try world.device(1)]
        let request = try request()
        var session = SnapshotRequestSession(request: request, siblings: siblings, now: start)
        XCTAssertFalse(session.receive(.offer(try offer(for: try self.request(2))), from: siblings[0]))
        XCTAssertFalse(session.receive(.offer(try offer(for: request)), from: try world.device(7)))
        XCTAssertFalse(session.receive(.request(request), from: siblings[0]))
        XCTAssertFalse(session.receive(.ack(.absorbed(request.requestID)), from: siblings[0]))
        XCTAssertEqual(session.state(now: start), .requesting)
        XCTAssertEqual(session.answers[siblings[0]], .pending)
    }

    func testWithNoSiblingNothingIsSent() throws {
        var session = SnapshotRequestSession(request: try request(), siblings: [], now: start)
        XCTAssertEqual(session.state(now: start), .noSiblings)
        XCTAssertEqual(session.due(now: start), [])
        XCTAssertNil(session.nextDeadline(now: start))
    }
}
