@testable import SyncEnvelope
import SyncKernel
import XCTest

/// Envelope sessions: a hello and an accept in whole envelopes, then frames under a counter and
/// an AEAD tag; what each refuses, what ends a session, and what a session frame costs.
final class EnvelopeSessionTests: XCTestCase {
    private let now = EnvelopeWorld.now

    /// Two devices of one world with session policies (seeded), each a sealer and a gate.
    private final class Pair {
        let world: EnvelopeWorld
        var sealers: [EnvelopeSealer]
        var gates: [EnvelopeGate]
        var policies: [SessionPolicy]

        init(world: EnvelopeWorld, lifetime: Int64 = 3_600_000) throws {
            self.world = world
            policies = (0..<2).map { SessionPolicy(entropy: .seeded(UInt64(40 + $0)), lifetimeMillis: lifetime, shortHandshakes: false) }
            sealers = []
            gates = []
            for index in 0..<2 {
                sealers.append(EnvelopeSealer(keys: try world.keys(index), roster: try world.roster(index), entropy: .seeded(UInt64(50 + index)),
                                              sessions: policies[index]))
                gates.append(try gate(index))
            }
        }

        /// A fresh gate for device `index` (a restart: a new policy, so a new epoch, when `restart`).
        func gate(_ index: Int, restart: Bool = false) throws -> EnvelopeGate {
            if restart { policies[index] = SessionPolicy(entropy: .seeded(UInt64(60 + index)), lifetimeMillis: policies[index].lifetimeMillis, shortHandshakes: false) }
            return EnvelopeGate(keys: try world.keys(index), roster: try world.roster(index),
                                replay: try ReplayGuard(path: world.replayPath(index)), sessions: policies[index],
                                entropy: .seeded(UInt64(70 + index)))
        }

        /// Sends `frame` from `from` to the other device at `at`; returns the envelopes published.
        func send(_ frame: [UInt8], from: Int, at: Int64) throws -> [SealedEnvelope] {
            try sealers[from].sealFrame(frame, to: try world.id(1 - from), now: at)
        }

        /// Delivers `envelope` to device `to` at `at`, answering a handshake message as a host
        /// does (a hello's accept is sealed back and delivered too); returns the verdict and the
        /// frame handed on to the replica, if any.
        @discardableResult
        func deliver(_ envelope: SealedEnvelope, to: Int, at: Int64) throws -> (EnvelopeVerdict, [UInt8]?) {
            let verdict = gates[to].open(envelope.bytes, now: at)
            guard case .accepted(let opened) = verdict else { return (verdict, nil) }
            guard SealedTransport.isSessionMessage(opened.frame) else { return (verdict, opened.frame) }
            let message = try XCTUnwrap(SessionMessage(decoding: opened.frame))
            _ = sealers[to].receive(message, from: opened.sender, now: at)
            if case .hello(let hello) = message,
               let accept = gates[to].opener.acceptSession(hello, from: opened.sender, now: at)?.accept {
                let reply = try sealers[to].seal(SessionMessage.accept(accept).encoded(), to: opened.sender, now: at)
                try deliver(reply, to: 1 - to, at: at)
            }
            return (verdict, nil)
        }

        /// Sends `frame` and delivers everything it took; returns the frames handed on.
        @discardableResult
        func exchange(_ frame: [UInt8], from: Int, at: Int64) throws -> [[UInt8]] {
            try send(frame, from: from, at: at).compactMap { try deliver($0, to: 1 - from, at: at).1 }
        }
    }

    private func frame(_ world: EnvelopeWorld, _ marker: UInt8 = 0) -> [UInt8] {
        SyncFrame(account: world.account.userIDHash, schema: SchemaFingerprint(value: UInt64(marker)), body: .heartbeat).encoded()
    }

    private func assertDropped(_ verdict: EnvelopeVerdict, _ reason: EnvelopeDropReason, file: StaticString = #filePath, line: UInt = #line) {
        guard case .dropped(let got) = verdict else { return XCTFail("accepted, expected \(reason)", file: file, line: line) }
        XCTAssertEqual(got, reason, file: file, line: line)
    }

    func testTheFirstFrameGoesWholeBehindAHelloAndLaterFramesThroughTheSession() throws {
        let pair = try Pair(world: EnvelopeWorld(devices: 2))
        let first = try pair.send(frame(pair.world, 1), from: 0, at: now)
        XCTAssertEqual(first.map { $0.bytes[0] }, [EnvelopeFormat.version, EnvelopeFormat.version], "a hello, then the frame whole")
        XCTAssertEqual(first[0].bytes.count, SealedEnvelope.overheadBytes + SessionMessage.helloBytes)
        XCTAssertFalse(pair.sealers[0].hasSession(to: try pair.world.id(1), now: now))
        let handed = try first.compactMap { try pair.deliver($0, to: 1, at: now).1 }
        XCTAssertEqual(handed, [frame(pair.world, 1)], "the hello never reaches the replica; the frame does")
        XCTAssertTrue(pair.sealers[0].hasSession(to: try pair.world.id(1), now: now), "the accept came back")
        XCTAssertEqual(pair.gates[1].opener.sessionCount, 1)
        let seen = pair.gates[1].seenCount
        for counter in 0..<200 {
            let payload = frame(pair.world, UInt8(counter % 200))
            let sent = try pair.send(payload, from: 0, at: now + Int64(counter))
            XCTAssertEqual(sent.count, 1)
            XCTAssertEqual(sent[0].bytes[0], SessionFormat.version)
            XCTAssertEqual(sent[0].bytes.count - payload.count, SessionFormat.overheadBytes(counter: UInt64(counter)))
            let (verdict, handedOn) = try pair.deliver(sent[0], to: 1, at: now + Int64(counter))
            guard case .accepted(let opened) = verdict else { return XCTFail("session frame \(counter) dropped: \(verdict)") }
            XCTAssertEqual(opened.sender, try pair.world.id(0))
            XCTAssertEqual(opened.account, pair.world.account.userIDHash)
            XCTAssertEqual(opened.frameID, [])
            XCTAssertEqual(handedOn, payload)
        }
        XCTAssertEqual(pair.gates[1].seenCount, seen, "a session frame records nothing in the seen set")
        XCTAssertEqual(SessionFormat.overheadBytes(counter: 0), 23)
        XCTAssertEqual(SessionFormat.overheadBytes(counter: 200), 24)
        XCTAssertEqual(SessionFormat.overheadBytes(counter: (1 << 21) - 1), 25)
    }

    func testRejectAReplayedOrAlteredSessionEnvelope() throws {
        let pair = try Pair(world: EnvelopeWorld(devices: 2))
        try pair.exchange(frame(pair.world), from: 0, at: now)
        let envelopes = try (0..<3).map { try pair.send(frame(pair.world, UInt8($0)), from: 0, at: now)[0] }
        guard case .accepted = try pair.deliver(envelopes[2], to: 1, at: now).0 else { return XCTFail("the newest first") }
        guard case .accepted = try pair.deliver(envelopes[0], to: 1, at: now).0 else { return XCTFail("an older one within the window") }
        assertDropped(try pair.deliver(envelopes[2], to: 1, at: now).0, .replayed)
        assertDropped(try pair.deliver(envelopes[0], to: 1, at: now).0, .replayed)
        for position in [1, 2, 5, 6, envelopes[1].bytes.count - 1, envelopes[1].bytes.count / 2 + 3] {
            var altered = envelopes[1].bytes
            altered[position] ^= 0x01
            let verdict = pair.gates[1].open(altered, now: now)
            guard case .dropped(let reason) = verdict else { return XCTFail("byte \(position) altered and accepted") }
            XCTAssertTrue([.badSessionTag, .unknownSession, .unknownFormat, .malformed, .replayed].contains(reason), "byte \(position): \(reason)")
        }
        guard case .accepted = try pair.deliver(envelopes[1], to: 1, at: now).0 else {
            return XCTFail("refused alterations burn no counter")
        }
    }

    func testRejectASessionEnvelopeBelowItsWindow() throws {
        let pair = try Pair(world: EnvelopeWorld(devices: 2))
        try pair.exchange(frame(pair.world), from: 0, at: now)
        let old = try pair.send(frame(pair.world), from: 0, at: now)[0]
        for _ in 0..<CounterWindow.width {
            _ = try pair.send(frame(pair.world), from: 0, at: now)
        }
        let newest = try pair.send(frame(pair.world), from: 0, at: now)[0]
        guard case .accepted = try pair.deliver(newest, to: 1, at: now).0 else { return XCTFail("a frame after lost ones passes") }
        assertDropped(try pair.deliver(old, to: 1, at: now).0, .replayed)
    }

    func testRejectANonCanonicalOrMalformedSessionHeader() throws {
        let pair = try Pair(world: EnvelopeWorld(devices: 2))
        try pair.exchange(frame(pair.world), from: 0, at: now)
        let envelope = try pair.send(frame(pair.world), from: 0, at: now)[0].bytes
        XCTAssertEqual(envelope[6], 0, "counter 0 in one byte")
        let padded = Array(envelope[0..<6]) + [0x80, 0x00] + envelope[7...]
        assertDropped(pair.gates[1].open(padded, now: now), .malformed)
        let tooLong = Array(envelope[0..<6]) + [UInt8](repeating: 0xff, count: 9) + [0x01] + [UInt8](repeating: 0, count: 16)
        assertDropped(pair.gates[1].open(tooLong, now: now), .malformed)
        assertDropped(pair.gates[1].open(Array(envelope.prefix(SessionFormat.minBytes - 1)), now: now), .truncated)
        XCTAssertNil(SessionFormat.header([SessionFormat.version, 0, 0, 0, 0, 0, 0x80, 0x01] + [UInt8](repeating: 0, count: 15)),
                     "a counter that runs into the tag is refused")
        XCTAssertNil(SessionFormat.seal([], wake: .silent, index: 1, counter: SessionFormat.counterLimit, key: [UInt8](repeating: 1, count: 32)))
        let oversized = [SessionFormat.version, 0] + [UInt8](repeating: 0, count: SessionFormat.maxBytes - 1)
        assertDropped(pair.gates[1].open(oversized, now: now), .oversized)
    }

    func testRejectASessionEnvelopeUnderAnIndexThisDeviceDoesNotHold() throws {
        let pair = try Pair(world: EnvelopeWorld(devices: 2))
        try pair.exchange(frame(pair.world), from: 0, at: now)
        var envelope = try pair.send(frame(pair.world), from: 0, at: now)[0].bytes
        envelope[2] ^= 0x40
        assertDropped(pair.gates[1].open(envelope, now: now), .unknownSession)
        let plain = EnvelopeGate(keys: try pair.world.keys(1), roster: try pair.world.roster(1),
                                 replay: try ReplayGuard(path: pair.world.path("plain.sqlite")))
        assertDropped(plain.open(try pair.send(frame(pair.world), from: 0, at: now)[0].bytes, now: now), .unknownSession)
    }

    func testARestartedReceiverDropsOldSessionFramesAndItsHelloMakesTheSenderShakeHandsAgain() throws {
        let pair = try Pair(world: EnvelopeWorld(devices: 2))
        let b = try pair.world.id(1)
        try pair.exchange(frame(pair.world), from: 0, at: now)
        try pair.exchange(frame(pair.world), from: 1, at: now)
        XCTAssertTrue(pair.sealers[0].hasSession(to: b, now: now))
        pair.gates[1] = try pair.gate(1, restart: true)
        pair.sealers[1] = EnvelopeSealer(keys: try pair.world.keys(1), roster: try pair.world.roster(1), entropy: .seeded(81),
                                         sessions: pair.policies[1])
        assertDropped(try pair.deliver(try pair.send(frame(pair.world), from: 0, at: now + 1)[0], to: 1, at: now + 1).0, .unknownSession)
        XCTAssertTrue(pair.sealers[0].hasSession(to: b, now: now + 1), "the sender cannot know yet")
        let fromB = try pair.send(frame(pair.world), from: 1, at: now + 2)
        XCTAssertEqual(fromB.count, 2, "the restarted device says hello before its first frame")
        for envelope in fromB { try pair.deliver(envelope, to: 0, at: now + 2) }
        XCTAssertFalse(pair.sealers[0].hasSession(to: b, now: now + 2), "the new epoch ended the session the sibling lost")
        let again = try pair.send(frame(pair.world, 7), from: 0, at: now + 3)
        XCTAssertEqual(again.map { $0.bytes[0] }, [EnvelopeFormat.version, EnvelopeFormat.version])
        XCTAssertEqual(try again.compactMap { try pair.deliver($0, to: 1, at: now + 3).1 }, [frame(pair.world, 7)])
        XCTAssertTrue(pair.sealers[0].hasSession(to: b, now: now + 3))
        XCTAssertEqual(try pair.exchange(frame(pair.world, 8), from: 0, at: now + 4), [frame(pair.world, 8)])
    }

    func testASessionEndsWithItsLifetimeAndIsRenewedBeforeWithoutALostFrame() throws {
        let lifetime: Int64 = 600_000
        let pair = try Pair(world: EnvelopeWorld(devices: 2), lifetime: lifetime)
        let b = try pair.world.id(1)
        try pair.exchange(frame(pair.world), from: 0, at: now)
        let late = try pair.send(frame(pair.world), from: 0, at: now + 1)[0]
        let margin = pair.policies[0].rekeyMarginMillis
        let renewing = try pair.send(frame(pair.world, 2), from: 0, at: now + lifetime - margin)
        XCTAssertEqual(renewing.map { $0.bytes[0] }, [EnvelopeFormat.version, SessionFormat.version],
                       "a hello for the next session; the frame still on the current one")
        XCTAssertEqual(try renewing.compactMap { try pair.deliver($0, to: 1, at: now + lifetime - margin).1 }, [frame(pair.world, 2)])
        XCTAssertEqual(pair.gates[1].opener.sessionCount, 2, "the old and the new session overlap")
        XCTAssertEqual(try pair.exchange(frame(pair.world, 3), from: 0, at: now + lifetime + 1), [frame(pair.world, 3)],
                       "past the first lifetime the renewed session carries frames")
        XCTAssertTrue(pair.sealers[0].hasSession(to: b, now: now + lifetime + 1))
        assertDropped(try pair.deliver(late, to: 1, at: now + lifetime + pair.policies[1].graceMillis).0, .sessionExpired)
    }

    func testAnUnansweredHelloIsRepeatedAfterTheTimeoutAndLessOftenEachTime() throws {
        let pair = try Pair(world: EnvelopeWorld(devices: 2))
        let timeout = pair.policies[0].handshakeTimeoutMillis
        var hellos: [Int64] = []
        var at = now
        while at < now + 8 * timeout {
            let sent = try pair.send(frame(pair.world), from: 0, at: at)
            XCTAssertEqual(sent.last?.bytes[0], EnvelopeFormat.version, "frames go whole while no accept came")
            if sent.count == 2 { hellos.append(at - now) }
            at += 1_000
        }
        XCTAssertEqual(hellos, [0, timeout, 3 * timeout, 7 * timeout], "waits of 1, 2, 4 timeouts")
    }

    func testADeviceStartedBeforeItsSiblingSaysHelloAgainWhenTheSiblingsFirstHelloArrives() throws {
        let pair = try Pair(world: EnvelopeWorld(devices: 2))
        let a = try pair.world.id(0)
        let b = try pair.world.id(1)
        XCTAssertEqual(try pair.send(frame(pair.world), from: 0, at: now).count, 2, "a hello nobody hears: b is not running")
        for envelope in try pair.send(frame(pair.world, 1), from: 1, at: now + 50) { try pair.deliver(envelope, to: 0, at: now + 50) }
        XCTAssertTrue(pair.sealers[1].hasSession(to: a, now: now + 50), "b's hello was answered")
        let again = try pair.send(frame(pair.world, 2), from: 0, at: now + 60)
        XCTAssertEqual(again.map { $0.bytes[0] }, [EnvelopeFormat.version, EnvelopeFormat.version],
                       "well inside the handshake timeout, b's epoch is new to a: a hello again, the frame whole")
        XCTAssertEqual(try again.compactMap { try pair.deliver($0, to: 1, at: now + 60).1 }, [frame(pair.world, 2)])
        XCTAssertTrue(pair.sealers[0].hasSession(to: b, now: now + 60))
        let through = try pair.send(frame(pair.world, 3), from: 0, at: now + 70)
        XCTAssertEqual(through.map { $0.bytes[0] }, [SessionFormat.version])
    }

    func testAHelloOfAnEpochAlreadyHeardBringsNoHelloBeforeTheTimeout() throws {
        let pair = try Pair(world: EnvelopeWorld(devices: 2))
        let timeout = pair.policies[0].handshakeTimeoutMillis
        _ = try pair.send(frame(pair.world), from: 0, at: now)
        let fromB = try pair.send(frame(pair.world), from: 1, at: now + 10)
        let helloB = try XCTUnwrap(pair.gates[0].open(fromB[0].bytes, now: now + 10).acceptedFrame)
        let message = try XCTUnwrap(SessionMessage(decoding: helloB))
        _ = pair.sealers[0].receive(message, from: try pair.world.id(1), now: now + 10)
        XCTAssertEqual(try pair.send(frame(pair.world), from: 0, at: now + 20).count, 2, "b's epoch is new: hello again (lost too)")
        _ = pair.sealers[0].receive(message, from: try pair.world.id(1), now: now + 30)
        XCTAssertEqual(try pair.send(frame(pair.world), from: 0, at: now + 40).count, 1, "the same epoch again: no hello storm")
        XCTAssertEqual(try pair.send(frame(pair.world), from: 0, at: now + 20 + timeout).count, 2, "the timeout still repeats it")
    }

    func testAnAcceptOfTheHelloThatWasReplacedStillOpensTheSession() throws {
        let pair = try Pair(world: EnvelopeWorld(devices: 2))
        let a = try pair.world.id(0)
        let b = try pair.world.id(1)
        let first = try pair.send(frame(pair.world), from: 0, at: now)
        let helloA = try XCTUnwrap(pair.gates[1].open(first[0].bytes, now: now).acceptedFrame)
        guard case .hello(let hello) = try XCTUnwrap(SessionMessage(decoding: helloA)) else { return XCTFail("a hello") }
        let accept = try XCTUnwrap(pair.gates[1].opener.acceptSession(hello, from: a, now: now)?.accept)
        let held = try pair.sealers[1].seal(SessionMessage.accept(accept).encoded(), to: a, now: now)
        for envelope in try pair.send(frame(pair.world), from: 1, at: now + 5) { try pair.deliver(envelope, to: 0, at: now + 5) }
        XCTAssertEqual(try pair.send(frame(pair.world), from: 0, at: now + 6).count, 2, "a second hello (never delivered)")
        try pair.deliver(held, to: 0, at: now + 7)
        XCTAssertTrue(pair.sealers[0].hasSession(to: b, now: now + 7), "the first hello's accept, already on its way, opened it")
        XCTAssertEqual(try pair.exchange(frame(pair.world, 4), from: 0, at: now + 8), [frame(pair.world, 4)])
    }

    func testRejectAnAcceptThatAnswersNoWaitingHello() throws {
        let world = try EnvelopeWorld(devices: 3)
        let pair = try Pair(world: world)
        let hello = try pair.send(frame(world), from: 0, at: now)[0]
        let opened = try XCTUnwrap(pair.gates[1].open(hello.bytes, now: now).acceptedFrame)
        guard case .hello(let message) = try XCTUnwrap(SessionMessage(decoding: opened)) else { return XCTFail("a hello") }
        let accept = try XCTUnwrap(pair.gates[1].opener.acceptSession(message, from: try world.id(0), now: now)?.accept)
        let stranger = SessionMessage.Accept(helloID: [UInt8](repeating: 9, count: 16), ephemeral: accept.ephemeral,
                                             index: accept.index, epoch: accept.epoch)
        XCTAssertFalse(pair.sealers[0].receive(.accept(stranger), from: try world.id(1), now: now))
        XCTAssertFalse(pair.sealers[0].receive(.accept(accept), from: try world.id(2), now: now), "answered by another device")
        XCTAssertFalse(pair.sealers[0].hasSession(to: try world.id(1), now: now))
        let lowOrder = SessionMessage.Accept(helloID: accept.helloID, ephemeral: [UInt8](repeating: 0, count: 32),
                                             index: accept.index, epoch: accept.epoch)
        XCTAssertFalse(pair.sealers[0].receive(.accept(lowOrder), from: try world.id(1), now: now), "a small-order key")
        XCTAssertTrue(pair.sealers[0].receive(.accept(accept), from: try world.id(1), now: now))
        XCTAssertFalse(pair.sealers[0].receive(.accept(accept), from: try world.id(1), now: now), "answered once")
    }

    func testAHelloFromOutsideTheRosterOrWithASmallOrderKeyOpensNothing() throws {
        let world = try EnvelopeWorld(devices: 3)
        let policy = SessionPolicy(entropy: .seeded(1), shortHandshakes: false)
        let gate = EnvelopeGate(keys: try world.keys(1), roster: try world.roster(1, members: [0, 1]),
                                replay: try ReplayGuard(path: world.replayPath(1)), sessions: policy)
        let hello = SessionMessage.Hello(helloID: [UInt8](repeating: 1, count: 16),
                                         ephemeral: try XCTUnwrap(Sodium.envelopePublicKey(secretKey: [UInt8](repeating: 3, count: 32))),
                                         epoch: [UInt8](repeating: 2, count: 16))
        XCTAssertNil(gate.opener.acceptSession(hello, from: try world.id(2), now: now), "not a sibling")
        let weak = SessionMessage.Hello(helloID: hello.helloID, ephemeral: [UInt8](repeating: 0, count: 32), epoch: hello.epoch)
        XCTAssertNil(gate.opener.acceptSession(weak, from: try world.id(0), now: now))
        XCTAssertEqual(gate.opener.sessionCount, 0)
        XCTAssertNotNil(gate.opener.acceptSession(hello, from: try world.id(0), now: now))
        for _ in 0..<10 { _ = gate.opener.acceptSession(hello, from: try world.id(0), now: now) }
        XCTAssertEqual(gate.opener.sessionCount, SessionReceiver.perSender, "a sender holds a bounded number of sessions")
    }

    func testRejectAHandshakeMessageOfAnyOtherSizeOrKind() {
        let hello = SessionMessage.hello(.init(helloID: [UInt8](repeating: 1, count: 16), ephemeral: [UInt8](repeating: 2, count: 32),
                                               epoch: [UInt8](repeating: 3, count: 16)))
        let accept = SessionMessage.accept(.init(helloID: [UInt8](repeating: 1, count: 16), ephemeral: [UInt8](repeating: 2, count: 32),
                                                 index: 0x0102_0304, epoch: [UInt8](repeating: 3, count: 16)))
        XCTAssertEqual(hello.encoded().count, SessionMessage.helloBytes)
        XCTAssertEqual(accept.encoded().count, SessionMessage.acceptBytes)
        XCTAssertEqual(SessionMessage(decoding: hello.encoded()), hello)
        XCTAssertEqual(SessionMessage(decoding: accept.encoded()), accept)
        XCTAssertNil(SessionMessage(decoding: hello.encoded() + [0]))
        XCTAssertNil(SessionMessage(decoding: Array(accept.encoded().dropLast())))
        var kind = hello.encoded()
        kind[4] = 2
        XCTAssertNil(SessionMessage(decoding: kind), "an accept's kind at a hello's size")
        kind[4] = 3
        XCTAssertNil(SessionMessage(decoding: kind))
        XCTAssertNil(SessionMessage(decoding: Array("SKSN".utf8)))
        XCTAssertTrue(SessionMessage.hasMagic(Array("SKSN".utf8)))
        XCTAssertFalse(SessionMessage.hasMagic(Array("SKXF".utf8) + [UInt8](repeating: 0, count: 80)))
    }

    func testAFrameOfAnExpiredSenderIsRefusedThroughItsSession() throws {
        let world = try EnvelopeWorld(devices: 2)
        let expiry = EnvelopeWorld.now / 1_000 + 60
        let short = try world.addDevice(expiresAt: expiry)
        let policies = (0..<2).map { SessionPolicy(entropy: .seeded(UInt64(90 + $0)), shortHandshakes: false) }
        var sealer = EnvelopeSealer(keys: try world.keys(short), roster: try world.roster(short), entropy: .seeded(3), sessions: policies[0])
        let gate = EnvelopeGate(keys: try world.keys(1), roster: try world.roster(1), replay: try ReplayGuard(path: world.replayPath(1)),
                                sessions: policies[1])
        let hello = try sealer.sealFrame(frame(world), to: try world.id(1), now: now)[0]
        let opened = try XCTUnwrap(gate.open(hello.bytes, now: now).acceptedFrame)
        guard case .hello(let message) = try XCTUnwrap(SessionMessage(decoding: opened)) else { return XCTFail("a hello") }
        let accept = try XCTUnwrap(gate.opener.acceptSession(message, from: try world.id(short), now: now)?.accept)
        XCTAssertTrue(sealer.receive(.accept(accept), from: try world.id(1), now: now))
        let frameEnvelope = try sealer.sealFrame(frame(world), to: try world.id(1), now: now + 1)[0]
        assertDropped(gate.open(frameEnvelope.bytes, now: expiry * 1_000), .expiredCertificate)
    }
}

private extension EnvelopeVerdict {
    /// The frame of an accepted envelope.
    var acceptedFrame: [UInt8]? {
        guard case .accepted(let opened) = self else { return nil }
        return opened.frame
    }
}
