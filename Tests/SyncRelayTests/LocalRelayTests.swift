import SyncKernel
import SyncRelay
import Synchronization
import XCTest

/// `LocalRelay` keeps `Relay`'s and `RelayConnection`'s rules: delivery to current listeners
/// only, each once and unchanged; nothing stored while nobody listens or the relay is away;
/// every publish counted; events in their order; the screen's dispositions counted.
final class LocalRelayTests: XCTestCase {
    /// Everything `stream` holds now, without waiting for more (the relay delivers synchronously).
    private func drain<Element: Sendable>(_ stream: AsyncStream<Element>, _ count: Int) async -> [Element] {
        var items: [Element] = []
        var iterator = stream.makeAsyncIterator()
        while items.count < count, let item = await iterator.next() { items.append(item) }
        return items
    }

    func testAPayloadReachesEveryListenerOfItsSubjectOnceAndNoOneElse() async throws {
        let relay = LocalRelay()
        let a = try relay.connect(inbox: "inbox.a")
        let a2 = try relay.connect(inbox: "inbox.a")
        let b = try relay.connect(inbox: "inbox.b")
        try b.publish([1, 2, 3], to: "inbox.a")
        try b.publish([4], to: "inbox.a")
        try a.publish([9], to: "inbox.b")
        let toA = await drain(a.messages, 2)
        let toA2 = await drain(a2.messages, 2)
        let toB = await drain(b.messages, 1)
        XCTAssertEqual(toA, [[1, 2, 3], [4]])
        XCTAssertEqual(toA2, [[1, 2, 3], [4]])
        XCTAssertEqual(toB, [[9]])
        XCTAssertEqual(b.counters.published, 2)
        XCTAssertEqual(b.counters.publishedBytes, 4)
        XCTAssertEqual(a.counters.received, 2)
        XCTAssertEqual(a.status, .connected)
    }

    func testNothingIsKeptForAListenerThatComesLater() async throws {
        let relay = LocalRelay()
        let sender = try relay.connect(inbox: "inbox.sender")
        try sender.publish([1], to: "inbox.late")
        let late = try relay.connect(inbox: "inbox.late")
        try sender.publish([2], to: "inbox.late")
        late.close()
        let received = await drain(late.messages, 10)
        XCTAssertEqual(received, [[2]], "only what was published while it listened")
    }

    func testRejectAPublishWhileTheRelayIsAwayCountItAndDeliverNothingLater() async throws {
        let relay = LocalRelay()
        let sender = try relay.connect(inbox: "inbox.sender")
        let receiver = try relay.connect(inbox: "inbox.receiver")
        relay.setReachable(false)
        XCTAssertEqual(sender.status, .reconnecting)
        do {
            try sender.publish([1], to: "inbox.receiver")
            XCTFail("no publish while away")
        } catch {
            XCTAssertEqual(error.code, .relayNotConnected)
        }
        XCTAssertThrowsError(try sender.flush(timeoutMillis: 10))
        XCTAssertEqual(sender.counters.dropped(.notConnected), 1)
        XCTAssertEqual(sender.counters.published, 0)
        relay.setReachable(true)
        try sender.publish([2], to: "inbox.receiver")
        receiver.close()
        let received = await drain(receiver.messages, 10)
        XCTAssertEqual(received, [[2]], "the payload refused while away never arrives")
        sender.close()
        let events = await drain(sender.events, 10)
        XCTAssertEqual(events, [.connected, .disconnected, .reconnected, .closed])
    }

    func testAConnectionOpenedWhileAwayConnectsWhenTheRelayComesBack() async throws {
        let relay = LocalRelay()
        relay.setReachable(false)
        let connection = try relay.connect(inbox: "inbox.x")
        XCTAssertEqual(connection.status, .connecting)
        relay.setReachable(true)
        connection.close()
        let events = await drain(connection.events, 10)
        XCTAssertEqual(events, [.connected, .closed], "the first connection is `.connected`, not `.reconnected`")
    }

    func testRejectPublishingAfterCloseAndTooLargePayloadsAndBadSubjects() throws {
        let relay = LocalRelay(maxMessageBytes: 8)
        let connection = try relay.connect(inbox: "inbox.y")
        XCTAssertThrowsError(try connection.publish([UInt8](repeating: 0, count: 9), to: "inbox.y")) { error in
            XCTAssertEqual((error as? RelayError)?.code, .relayPayloadTooLarge)
        }
        for subject in ["", "two words", "tab\tin", String(repeating: "s", count: 257)] {
            XCTAssertThrowsError(try connection.publish([1], to: subject), subject) { error in
                XCTAssertEqual((error as? RelayError)?.code, .invalidSubject)
            }
            XCTAssertThrowsError(try relay.connect(inbox: subject), subject)
        }
        connection.close()
        connection.close()
        XCTAssertEqual(connection.status, .closed)
        XCTAssertThrowsError(try connection.publish([1], to: "inbox.y")) { error in
            XCTAssertEqual((error as? RelayError)?.code, .relayClosed)
        }
        XCTAssertThrowsError(try LocalRelay(receiveBufferMessages: 0).validated()) { error in
            XCTAssertEqual((error as? RelayError)?.code, .invalidRelayConfiguration)
        }
    }

    func testTheScreenTakesWhatItConsumesAndAFullBufferIsCountedNotQueued() async throws {
        let relay = LocalRelay(receiveBufferMessages: 2)
        let screened = Mutex<[[UInt8]]>([])
        let screening = try relay.connect(inbox: "inbox.screen") { payload in
            screened.withLock { $0.append(payload) }
            return switch payload.first {
            case 0: .consumed
            case 1: .overflowed
            default: .queue
            }
        }
        let sender = try relay.connect(inbox: "inbox.sender")
        for first: UInt8 in [0, 1, 2, 2, 2] { try sender.publish([first], to: "inbox.screen") }
        XCTAssertEqual(screened.withLock { $0 }, [[0], [1], [2], [2], [2]], "the screen sees every payload in order")
        XCTAssertEqual(screening.counters.received, 5)
        XCTAssertEqual(screening.counters.dropped(.receiveBufferFull), 2, "one the screen overflowed, one beyond the buffer of 2")
        screening.close()
        let queued = await drain(screening.messages, 10)
        XCTAssertEqual(queued, [[2], [2]])
    }

    func testAnyRelayConnectsThroughTheProtocol() throws {
        let relay: any Relay = LocalRelay()
        XCTAssertNil(relay.shortFormCapability, "a relay with one form announces none")
        let validated = try relay.validated()
        let connection = try validated.connect(inbox: "inbox.z")
        XCTAssertEqual(connection.inbox, "inbox.z")
        connection.close()
    }
}
