import SyncRelay
import Foundation
import NatsRelay
import Synchronization
import SyncKernel
import TestServerSupport
import TestServers
import XCTest

/// The relay connection against a real `nats-server` on loopback: publish/subscribe, chunking
/// past the server's limit, no storage, reconnects and their events, credentials.
final class NatsRelayConnectionTests: XCTestCase {
    private let wait = Duration.seconds(20)

    private func connect(_ server: NatsServerProcess, inbox: String,
                         configure: (inout NatsRelayOptions) -> Void = { _ in }) throws -> NatsRelayConnection {
        var options = NatsRelayOptions(servers: [server.url])
        options.reconnectWaitMillis = 50
        options.reconnectJitterMillis = 0
        configure(&options)
        let connection = try NatsRelayConnection(options: options, inbox: inbox)
        addTeardownBlock { connection.close() }
        return connection
    }

    func testPublishedPayloadsReachTheInboxSubscriberInOrder() async throws {
        let server = try await startNatsServer()
        let alice = try connect(server, inbox: "sk.test.alice")
        let bob = try connect(server, inbox: "sk.test.bob")
        let received = Recorder(alice.messages)
        let payloads = [[], [1, 2, 3], Payloads.bytes(100_000, seed: 1)]
        for payload in payloads { try bob.publish(payload, to: "sk.test.alice") }
        let arrived = await received.wait(timeout: wait) { $0.count >= payloads.count }
        XCTAssertTrue(arrived)
        XCTAssertEqual(received.items, payloads)
        XCTAssertEqual(bob.counters.published, 3)
        XCTAssertEqual(alice.counters.received, 3)
        XCTAssertEqual(alice.counters.drops, [:])
    }

    func testAScreenSeesEveryPayloadInOrderAndOnlyWhatItQueuesReachesMessages() async throws {
        let server = try await startNatsServer()
        let seen = Mutex<[[UInt8]]>([])
        var options = NatsRelayOptions(servers: [server.url])
        options.reconnectWaitMillis = 50
        let alice = try NatsRelayConnection(options: options, inbox: "sk.test.alice") { payload in
            seen.withLock { $0.append(payload) }
            switch payload.first {
            case 0: return .consumed
            case 1: return .overflowed
            default: return .queue
            }
        }
        addTeardownBlock { alice.close() }
        let bob = try connect(server, inbox: "sk.test.bob")
        let received = Recorder(alice.messages)
        let payloads: [[UInt8]] = [[0, 7], [2, 7], [1, 7], [0, 8], Payloads.bytes(200_000, seed: 2).map { max($0, 2) }, [3]]
        for payload in payloads { try bob.publish(payload, to: "sk.test.alice") }
        let arrived = await received.wait(timeout: wait) { $0.last == [3] }
        XCTAssertTrue(arrived)
        XCTAssertEqual(seen.withLock { $0 }, payloads, "the screen sees every whole payload, joined, in arrival order")
        XCTAssertEqual(received.items, [payloads[1], payloads[4], payloads[5]])
        XCTAssertEqual(alice.counters.received, payloads.count)
        XCTAssertEqual(alice.counters.drops, [.receiveBufferFull: 1], "only an overflowed payload counts as lost")
    }

    func testAPayloadBeyondTheDefaultServerLimitArrivesWholeInChunks() async throws {
        let server = try await startNatsServer()
        let alice = try connect(server, inbox: "sk.test.alice")
        let bob = try connect(server, inbox: "sk.test.bob")
        let received = Recorder(alice.messages)
        let payload = Payloads.bytes(3 * 1024 * 1024 + 5, seed: 2)
        try bob.publish(payload, to: "sk.test.alice")
        let arrived = await received.wait(timeout: wait) { !$0.isEmpty }
        XCTAssertTrue(arrived)
        XCTAssertEqual(received.items.first, payload)
        XCTAssertEqual(bob.counters.publishedChunks, 4, "1 MiB server limit: three full chunks and a rest")
        XCTAssertEqual(alice.counters.receivedChunks, 4)
    }

    func testTheShortFormArrivesWholeAndAPayloadTooLargeForItGoesInChunks() async throws {
        let server = try await startNatsServer(config: "max_payload: 4096\n")
        let alice = try connect(server, inbox: "sk.test.alice")
        let bob = try connect(server, inbox: "sk.test.bob")
        let received = Recorder(alice.messages)
        let small = Payloads.bytes(4095, seed: 5)
        let large = Payloads.bytes(4096, seed: 6)
        try bob.publish(small, to: "sk.test.alice", shortForm: true)
        try bob.publish(large, to: "sk.test.alice", shortForm: true)
        try bob.publish(small, to: "sk.test.alice")
        let arrived = await received.wait(timeout: wait) { $0.count >= 3 }
        XCTAssertTrue(arrived)
        XCTAssertEqual(received.items, [small, large, small])
        XCTAssertEqual(bob.counters.publishedShort, 1, "4,095 bytes and the one-byte header fill one message of 4,096")
        XCTAssertEqual(bob.counters.publishedChunks, 1 + 2 + 2)
        XCTAssertEqual(alice.counters.drops, [:])
    }

    func testAServerWithASmallMaxPayloadGetsManySmallChunks() async throws {
        let server = try await startNatsServer(config: "max_payload: 4096\n")
        let alice = try connect(server, inbox: "sk.test.alice")
        let bob = try connect(server, inbox: "sk.test.bob")
        let received = Recorder(alice.messages)
        let payload = Payloads.bytes(200_000, seed: 3)
        try bob.publish(payload, to: "sk.test.alice")
        try bob.publish([9], to: "sk.test.alice")
        let arrived = await received.wait(timeout: wait) { $0.count >= 2 }
        XCTAssertTrue(arrived)
        XCTAssertEqual(received.items, [payload, [9]])
        let dataPerChunk = 4096 - 17
        XCTAssertEqual(bob.counters.publishedChunks, (payload.count + dataPerChunk - 1) / dataPerChunk + 1)
    }

    func testMaxChunkBytesBelowTheServerLimitIsHonoured() async throws {
        let server = try await startNatsServer()
        let alice = try connect(server, inbox: "sk.test.alice")
        let bob = try connect(server, inbox: "sk.test.bob") { $0.maxChunkBytes = 1_017 }
        let received = Recorder(alice.messages)
        try bob.publish(Payloads.bytes(10_000, seed: 4), to: "sk.test.alice")
        let arrived = await received.wait(timeout: wait) { !$0.isEmpty }
        XCTAssertTrue(arrived)
        XCTAssertEqual(received.items.first, Payloads.bytes(10_000, seed: 4))
        XCTAssertEqual(bob.counters.publishedChunks, 10)
    }

    func testNothingIsKeptForASubscriberThatArrivesLater() async throws {
        let server = try await startNatsServer()
        let bob = try connect(server, inbox: "sk.test.bob")
        try bob.publish([1], to: "sk.test.late")
        try bob.flush()
        let late = try connect(server, inbox: "sk.test.late")
        let received = Recorder(late.messages)
        try bob.publish([2], to: "sk.test.late")
        try bob.publish([3], to: "sk.test.late")
        let arrived = await received.wait(timeout: wait) { $0.count >= 2 }
        XCTAssertTrue(arrived)
        // One publisher's messages arrive in order: had [1] been kept, it would come first.
        XCTAssertEqual(received.items, [[2], [3]])
    }

    func testARestartedServerIsReportedAndWhatWasSentMeanwhileNeverArrives() async throws {
        let server = try await startNatsServer()
        let alice = try connect(server, inbox: "sk.test.alice")
        let bob = try connect(server, inbox: "sk.test.bob")
        let events = Recorder(bob.events)
        let received = Recorder(alice.messages)
        await server.stop()
        let down = await events.wait(timeout: wait) { $0.contains(.disconnected) }
        XCTAssertTrue(down)
        XCTAssertThrowsError(try bob.publish([1], to: "sk.test.alice")) {
            XCTAssertEqual(($0 as? RelayError)?.code, .relayNotConnected)
        }
        XCTAssertEqual(bob.counters.dropped(.notConnected), 1)
        XCTAssertNotEqual(bob.status, .connected)
        try await server.restart()
        let aliceEvents = Recorder(alice.events)
        let back = await events.wait(timeout: wait) { $0.contains(.reconnected) }
        let aliceBack = await aliceEvents.wait(timeout: wait) { $0.contains(.reconnected) }
        XCTAssertTrue(back && aliceBack)
        XCTAssertEqual(events.items, [.connected, .disconnected, .reconnected])
        try bob.publish([2], to: "sk.test.alice")
        let arrived = await received.wait(timeout: wait) { !$0.isEmpty }
        XCTAssertTrue(arrived)
        XCTAssertEqual(received.items, [[2]], "the inbox subscription was renewed; the payload sent while down is gone")
    }

    func testAConnectionMadeBeforeItsServerRunsConnectsWhenItComesUp() async throws {
        let server = try await startNatsServer()
        await server.stop()
        let alice = try connect(server, inbox: "sk.test.alice")
        XCTAssertNotEqual(alice.status, .connected)
        let events = Recorder(alice.events)
        XCTAssertThrowsError(try alice.publish([1], to: "sk.test.alice"))
        try await server.restart()
        let up = await events.wait(timeout: wait) { $0.contains(.connected) }
        XCTAssertTrue(up)
        XCTAssertEqual(events.items.first, .connected)
        let received = Recorder(alice.messages)
        let bob = try connect(server, inbox: "sk.test.bob")
        try bob.publish([7], to: "sk.test.alice")
        let arrived = await received.wait(timeout: wait) { !$0.isEmpty }
        XCTAssertTrue(arrived)
        XCTAssertEqual(received.items, [[7]])
    }

    func testAConnectionWhoseAttemptsRunOutEndsClosedWhenEverThatHappens() async throws {
        let server = try await startNatsServer()
        await server.stop()
        for _ in 0..<5 {
            let alice = try connect(server, inbox: "sk.test.alice") { $0.maxReconnectAttempts = 0 }
            let events = Recorder(alice.events)
            let closed = await events.wait(timeout: wait) { $0.contains(.closed) }
            XCTAssertTrue(closed)
            XCTAssertEqual(events.items, [.closed])
            XCTAssertEqual(alice.status, .closed)
            XCTAssertThrowsError(try alice.publish([1], to: "sk.test.bob")) {
                XCTAssertEqual(($0 as? RelayError)?.code, .relayClosed)
            }
            for await _ in alice.messages {}
        }
    }

    func testUserCredentialsAreSentToTheServer() async throws {
        let server = try await startNatsServer(config: "authorization { user: device, password: \"s3cret\" }\n")
        let alice = try connect(server, inbox: "sk.test.alice") {
            $0.credentials = .userPassword(user: "device", password: "s3cret")
        }
        XCTAssertEqual(alice.status, .connected)
        let bob = try connect(server, inbox: "sk.test.bob") { $0.credentials = .userPassword(user: "device", password: "s3cret") }
        let received = Recorder(alice.messages)
        try bob.publish([1], to: "sk.test.alice")
        let arrived = await received.wait(timeout: wait) { !$0.isEmpty }
        XCTAssertTrue(arrived)
    }

    func testTLSConnectsWhenTheServerCertificateIsTrustedAndOnlyThen() async throws {
        let directory = NSTemporaryDirectory() + "synckernel-tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        let certificate = try TestCertificate.make(in: directory)
        let server = try await startNatsServer(config: """
            tls {
              cert_file: "\(certificate.certificateFile)"
              key_file: "\(certificate.keyFile)"
            }

            """)
        let trusted = NatsRelayOptions.TLS(trustedCertificatesFile: certificate.certificateFile)
        let alice = try connect(server, inbox: "sk.test.alice") { $0.tls = trusted }
        let bob = try connect(server, inbox: "sk.test.bob") { $0.tls = trusted }
        XCTAssertEqual(alice.status, .connected)
        let received = Recorder(alice.messages)
        try bob.publish([4, 2], to: "sk.test.alice")
        let arrived = await received.wait(timeout: wait) { !$0.isEmpty }
        XCTAssertTrue(arrived)
        XCTAssertEqual(received.items, [[4, 2]])
        let named = try connect(server, inbox: "sk.test.named") {
            $0.tls = .init(trustedCertificatesFile: certificate.certificateFile, expectedHostname: "localhost")
        }
        XCTAssertEqual(named.status, .connected, "the certificate names localhost")
        let wrongName = try connect(server, inbox: "sk.test.wrong") {
            $0.tls = .init(trustedCertificatesFile: certificate.certificateFile, expectedHostname: "relay.example")
        }
        let untrusted = try connect(server, inbox: "sk.test.stranger") { $0.tls = .init() }
        let plain = try connect(server, inbox: "sk.test.plain")
        for connection in [wrongName, untrusted, plain] {
            XCTAssertNotEqual(connection.status, .connected, connection.inbox)
        }
    }

    func testCloseEndsTheStreamsAndLaterCallsThrowRelayClosed() async throws {
        let server = try await startNatsServer()
        let alice = try connect(server, inbox: "sk.test.alice")
        let events = Recorder(alice.events)
        alice.close()
        alice.close()
        XCTAssertEqual(alice.status, .closed)
        XCTAssertThrowsError(try alice.publish([1], to: "sk.test.bob")) {
            XCTAssertEqual(($0 as? RelayError)?.code, .relayClosed)
        }
        let closed = await events.wait(timeout: wait) { $0.last == .closed }
        XCTAssertTrue(closed)
        XCTAssertEqual(events.items, [.connected, .disconnected, .closed])
        var ended = false
        for await _ in alice.messages {}
        ended = true
        XCTAssertTrue(ended)
    }

    func testRejectPayloadsBeyondTheMessageBound() async throws {
        let server = try await startNatsServer()
        let alice = try connect(server, inbox: "sk.test.alice") { $0.maxMessageBytes = 1_000 }
        XCTAssertThrowsError(try alice.publish([UInt8](repeating: 0, count: 1_001), to: "sk.test.bob")) {
            XCTAssertEqual(($0 as? RelayError)?.code, .relayPayloadTooLarge)
        }
        let tight = try connect(server, inbox: "sk.test.tight") {
            $0.maxChunkBytes = 117
            $0.maxChunksPerMessage = 3
        }
        XCTAssertNoThrow(try tight.publish([UInt8](repeating: 0, count: 300), to: "sk.test.bob"))
        XCTAssertThrowsError(try tight.publish([UInt8](repeating: 0, count: 301), to: "sk.test.bob")) {
            XCTAssertEqual(($0 as? RelayError)?.code, .relayPayloadTooLarge)
        }
    }

    func testRejectSubjectsThatAreNotOneInbox() throws {
        for subject in ["", "a..b", ".a", "a.", "sk.*", "sk.>", "a b", "a\tb", "ä", String(repeating: "a", count: 201),
                        (0..<17).map { _ in "a" }.joined(separator: ".")] {
            XCTAssertThrowsError(try RelaySubject.validate(subject), subject) {
                XCTAssertEqual(($0 as? RelayError)?.code, .invalidSubject)
            }
            XCTAssertThrowsError(try NatsRelayConnection(options: NatsRelayOptions(), inbox: subject))
        }
        for subject in ["a", "synckernel.device.0f3a", "A-b_c.9", (0..<16).map { _ in "a" }.joined(separator: ".")] {
            XCTAssertNoThrow(try RelaySubject.validate(subject), subject)
        }
    }

    func testRejectOptionsTheClientCannotHonour() throws {
        var cases: [(String, (inout NatsRelayOptions) -> Void)] = [
            ("no server", { $0.servers = [] }),
            ("empty URL", { $0.servers = [""] }),
            ("two URLs in one", { $0.servers = ["nats://a:1,nats://b:2"] }),
            ("zero timeout", { $0.connectTimeoutMillis = 0 }),
            ("negative attempts", { $0.maxReconnectAttempts = -1 }),
            ("zero message bound", { $0.maxMessageBytes = 0 }),
            ("no room for data", { $0.maxChunkBytes = 17 }),
            ("budget below a message", { $0.reassemblyBudgetBytes = $0.maxMessageBytes - 1 }),
            ("empty password", { $0.credentials = .userPassword(user: "u", password: "") }),
            ("empty token", { $0.credentials = .token("") }),
            ("certificate without key", { $0.tls = .init(certificateChainFile: "/tmp/cert.pem") }),
        ]
        cases.append(("missing CA file", { $0.tls = .init(trustedCertificatesFile: "/nonexistent/ca.pem") }))
        for (name, change) in cases {
            var options = NatsRelayOptions()
            change(&options)
            XCTAssertThrowsError(try NatsRelayConnection(options: options, inbox: "sk.test.a"), name) {
                XCTAssertEqual(($0 as? RelayError)?.code, .invalidRelayConfiguration, name)
            }
        }
    }

    func testOptionsNeverPrintTheirCredentials() {
        var options = NatsRelayOptions(servers: ["nats://user:pw@127.0.0.1:4222"])
        options.credentials = .userPassword(user: "device", password: "s3cret")
        for text in [options.description, "\(options)", String(describing: options.credentials)] {
            XCTAssertFalse(text.contains("s3cret") || text.contains("device") || text.contains("pw@"), text)
        }
        options.credentials = .token("t0ken")
        XCTAssertFalse("\(options)".contains("t0ken"))
    }
}
