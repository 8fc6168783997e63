@testable import SyncEnvelope
import SyncKernel
import XCTest

/// Pair hellos: one handshake opens a session each way, the hello carries the first frame, and a
/// sibling that does not answer one (an older build) is spoken to with one-direction hellos.
final class EnvelopePairSessionTests: XCTestCase {
    private let now = EnvelopeWorld.now

    private func frame(_ world: EnvelopeWorld, _ marker: UInt8 = 0) -> [UInt8] {
        SyncFrame(account: world.account.userIDHash, schema: SchemaFingerprint(value: UInt64(marker)), body: .heartbeat).encoded()
    }

    /// Device `index`'s gate and a sealer that files its reply sessions in that gate's opener.
    private func paired(_ world: EnvelopeWorld, _ index: Int) throws -> (gate: EnvelopeGate, sealer: EnvelopeSealer) {
        let policy = SessionPolicy(entropy: .seeded(UInt64(40 + index)), shortHandshakes: false)
        let gate = EnvelopeGate(keys: try world.keys(index), roster: try world.roster(index),
                                replay: try ReplayGuard(path: world.replayPath(index)), sessions: policy, entropy: .seeded(UInt64(70 + index)))
        let sealer = EnvelopeSealer(keys: try world.keys(index), roster: try world.roster(index), entropy: .seeded(UInt64(50 + index)),
                                    sessions: policy, replies: gate.opener)
        return (gate, sealer)
    }

    private func hello(in verdict: EnvelopeVerdict) throws -> SessionMessage.Hello {
        let opened = try XCTUnwrap({ if case .accepted(let opened) = verdict { opened } else { nil } }(), "accepted: \(verdict)")
        let message = SessionMessage(decoding: opened.frame)
        return try XCTUnwrap({ if case .hello(let hello) = message { hello } else { nil } }(), "a hello")
    }

    func testAPairHelloRoundTripsWithTheFrameItCarriesAndRejectsAShortFixedPart() {
        let bare = SessionMessage.Hello(helloID: [UInt8](repeating: 1, count: 16), ephemeral: [UInt8](repeating: 2, count: 32),
                                        epoch: [UInt8](repeating: 3, count: 16), replyIndex: 0xa0b0_c0d0)
        let carrying = SessionMessage.hello(bare.carrying([9, 8, 7]))
        XCTAssertEqual(SessionMessage.hello(bare).encoded().count, SessionMessage.pairHelloBytes)
        XCTAssertEqual(carrying.encoded().count, SessionMessage.pairHelloBytes + 3)
        XCTAssertEqual(carrying.encoded()[4], 3, "a pair hello's kind")
        XCTAssertEqual(SessionMessage(decoding: carrying.encoded()), carrying)
        XCTAssertEqual(SessionMessage(decoding: SessionMessage.hello(bare).encoded()), .hello(bare), "an empty frame is allowed")
        XCTAssertNil(SessionMessage(decoding: Array(SessionMessage.hello(bare).encoded().dropLast())))
        let oneWay = SessionMessage.Hello(helloID: bare.helloID, ephemeral: bare.ephemeral, epoch: bare.epoch, frame: [1, 2])
        XCTAssertEqual(oneWay.frame, [], "a one-direction hello carries no frame")
        XCTAssertEqual(SessionMessage.hello(oneWay).encoded().count, SessionMessage.helloBytes)
    }

    func testTheTwoDirectionsOfOneHandshakeNeverShareAKey() throws {
        let world = try EnvelopeWorld(devices: 2)
        let shared = [UInt8](repeating: 5, count: 32)
        let ephemerals = ([UInt8](repeating: 6, count: 32), [UInt8](repeating: 7, count: 32))
        let channel = try world.keys(0).channel.mac
        let forward = try XCTUnwrap(SessionFormat.sessionKey(sharedSecret: shared, channelKey: channel, initiator: world.id(0),
                                                             responder: world.id(1), helloID: [UInt8](repeating: 8, count: 16),
                                                             initiatorEphemeral: ephemerals.0, responderEphemeral: ephemerals.1, index: 4))
        let reply = try XCTUnwrap(SessionFormat.replyKey(sharedSecret: shared, channelKey: channel, initiator: world.id(0),
                                                         responder: world.id(1), helloID: [UInt8](repeating: 8, count: 16),
                                                         initiatorEphemeral: ephemerals.0, responderEphemeral: ephemerals.1,
                                                         index: 4, replyIndex: 4))
        XCTAssertNotEqual(forward, reply, "the same indices, another direction")
    }

    func testOneHandshakeOpensBothDirectionsAndEachDirectionOpensOnlyAtItsReceiver() throws {
        let world = try EnvelopeWorld(devices: 2)
        var (gateA, sealerA) = try paired(world, 0)
        var (gateB, sealerB) = try paired(world, 1)
        let (a, b) = (try world.id(0), try world.id(1))
        let first = try sealerA.sealFrame(frame(world, 1), to: b, now: now)
        XCTAssertEqual(first.count, 1, "the frame rides in the hello")
        let hello = try hello(in: gateB.open(first[0].bytes, now: now))
        XCTAssertEqual(hello.frame, frame(world, 1))
        _ = sealerB.receive(.hello(hello), from: a, now: now)
        let (accept, replyKey) = try XCTUnwrap(gateB.opener.acceptSession(hello, from: a, now: now))
        sealerB.openReply(to: a, for: hello, key: try XCTUnwrap(replyKey), now: now)
        XCTAssertTrue(sealerB.hasSession(to: a, now: now), "b sends to a without a hello of its own")
        let acceptEnvelope = try sealerB.seal(SessionMessage.accept(accept).encoded(), to: a, now: now)
        let reply = try sealerB.sealFrame(frame(world, 2), to: a, now: now)
        XCTAssertEqual(reply.map { $0.bytes[0] }, [SessionFormat.version])
        XCTAssertEqual(reply[0].bytes.count, frame(world, 2).count + SessionFormat.overheadBytes(counter: 0))
        XCTAssertEqual(gateA.opener.awaitedReply(reply[0].bytes)?.sibling, b, "reserved for b, its accept not in yet")
        guard case .dropped(.unknownSession) = gateA.open(reply[0].bytes, now: now) else { return XCTFail("no session before the accept") }
        guard case .accepted(let opened) = gateA.open(acceptEnvelope.bytes, now: now) else { return XCTFail("the accept passes") }
        XCTAssertTrue(sealerA.receive(try XCTUnwrap(SessionMessage(decoding: opened.frame)), from: b, now: now))
        XCTAssertNil(gateA.opener.awaitedReply(reply[0].bytes), "filed")
        let later = try sealerB.sealFrame(frame(world, 3), to: a, now: now + 1)
        guard case .accepted(let replied) = gateA.open(later[0].bytes, now: now + 1) else { return XCTFail("the reply session opens") }
        XCTAssertEqual(replied.frame, frame(world, 3))
        let back = try sealerA.sealFrame(frame(world, 4), to: b, now: now + 2)
        XCTAssertEqual(back.map { $0.bytes[0] }, [SessionFormat.version])
        guard case .accepted(let forward) = gateB.open(back[0].bytes, now: now + 2) else { return XCTFail("the forward session opens") }
        XCTAssertEqual(forward.frame, frame(world, 4))
        var crossed = later[0].bytes
        crossed.replaceSubrange(2..<6, with: back[0].bytes[2..<6])
        guard case .dropped = gateB.open(crossed, now: now + 3) else { return XCTFail("a reply frame under the forward index fails") }
    }

    func testAFrameTooLargeToRideInTheHelloFollowsItWhole() throws {
        let world = try EnvelopeWorld(devices: 2)
        var (_, sealer) = try paired(world, 0)
        let largest = [UInt8](repeating: 0xa5, count: SyncFrame.maxFrameBytes - SessionMessage.pairHelloBytes + 1)
        let envelopes = try sealer.sealFrame(largest, to: try world.id(1), now: now)
        XCTAssertEqual(envelopes.count, 2, "the hello, then the frame in a whole envelope of its own")
        XCTAssertEqual(envelopes[0].bytes.count, SealedEnvelope.overheadBytes + SessionMessage.pairHelloBytes)
        XCTAssertEqual(envelopes[1].bytes.count, SealedEnvelope.overheadBytes + largest.count)
        var (_, other) = try paired(world, 0)
        let fits = [UInt8](repeating: 0xa5, count: SyncFrame.maxFrameBytes - SessionMessage.pairHelloBytes)
        let one = try other.sealFrame(fits, to: try world.id(1), now: now)
        XCTAssertEqual(one.map(\.bytes.count), [SealedEnvelope.overheadBytes + SessionMessage.pairHelloBytes + fits.count],
                       "at the bound it still rides along")
    }

    func testAPairHelloLeftUnansweredIsFollowedByOneDirectionHellosUntilANewEpoch() throws {
        let policy = SessionPolicy(entropy: .seeded(1), shortHandshakes: false)
        var sender = SessionSender(policy: policy)
        let world = try EnvelopeWorld(devices: 2)
        let b = try world.id(1)
        let entropy = EntropySource.seeded(2)
        var reserved = 0
        let reserve = { () -> UInt32? in
            reserved += 1
            return UInt32(reserved)
        }
        XCTAssertEqual(sender.helloIfDue(to: b, now: now, entropy: entropy, reserve: reserve)?.replyIndex, 1)
        XCTAssertNil(sender.helloIfDue(to: b, now: now + 1, entropy: entropy, reserve: reserve), "waiting for its answer")
        XCTAssertEqual(reserved, 1, "nothing reserved while no hello is due")
        let fallback = sender.helloIfDue(to: b, now: now + policy.handshakeTimeoutMillis, entropy: entropy, reserve: reserve)
        XCTAssertNotNil(fallback)
        XCTAssertNil(fallback?.replyIndex, "unanswered: the sibling may not read pair hellos")
        sender.observe(epoch: [UInt8](repeating: 9, count: 16), of: b)
        let again = sender.helloIfDue(to: b, now: now + policy.handshakeTimeoutMillis + 1, entropy: entropy, reserve: reserve)
        XCTAssertNotNil(again?.replyIndex, "a new epoch (the sibling restarted, perhaps updated): a pair hello again")
    }

    func testAReplySessionIsFiledOnlyUnderAnIndexReservedForItsSender() throws {
        let world = try EnvelopeWorld(devices: 3)
        let gate = EnvelopeGate(keys: try world.keys(0), roster: try world.roster(0), replay: try ReplayGuard(path: world.replayPath(0)),
                                sessions: SessionPolicy(entropy: .seeded(3), shortHandshakes: false), entropy: .seeded(4))
        let key = [UInt8](repeating: 1, count: 32)
        let (b, c) = (try world.id(1), try world.id(2))
        let index = try XCTUnwrap(gate.opener.reserveReply(for: b))
        XCTAssertFalse(gate.opener.fileReply(key: key, at: index, from: c, now: now), "reserved for another sibling")
        XCTAssertFalse(gate.opener.fileReply(key: key, at: index &+ 1, from: b, now: now), "not reserved")
        XCTAssertTrue(gate.opener.fileReply(key: key, at: index, from: b, now: now))
        XCTAssertFalse(gate.opener.fileReply(key: key, at: index, from: b, now: now), "a reservation is spent once")
        XCTAssertEqual(gate.opener.sessionCount, 1)
        let oldest = try XCTUnwrap(gate.opener.reserveReply(for: c))
        for _ in 0..<SessionReceiver.perSender { _ = gate.opener.reserveReply(for: c) }
        XCTAssertFalse(gate.opener.fileReply(key: key, at: oldest, from: c, now: now), "a sibling's reservations are bounded")
        let without = EnvelopeGate(keys: try world.keys(0), roster: try world.roster(0), replay: try ReplayGuard(path: world.replayPath(0)))
        XCTAssertNil(without.opener.reserveReply(for: b), "no session policy, no pair hello")
    }
}
