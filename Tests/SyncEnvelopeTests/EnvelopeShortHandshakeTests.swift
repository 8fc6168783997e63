@testable import SyncEnvelope
import SyncKernel
import XCTest

/// Short handshake envelopes (`HandshakeFormat`): a hello or accept between siblings that hold
/// each other's certificates, proved by their certified keys; whatever is altered, replayed,
/// stale, sealed to another device or by another account is dropped, and a sibling that cannot
/// read one is spoken to in whole envelopes after the handshake timeout.
final class EnvelopeShortHandshakeTests: XCTestCase {
    private let now = EnvelopeWorld.now

    private func frame(_ world: EnvelopeWorld, _ marker: UInt8 = 0) -> [UInt8] {
        SyncFrame(account: world.account.userIDHash, schema: SchemaFingerprint(value: UInt64(marker)), body: .heartbeat).encoded()
    }

    /// Device `index`'s gate (its roster limited to `members`) and a sealer sending short pair hellos.
    private func paired(_ world: EnvelopeWorld, _ index: Int, members: [Int]? = nil,
                        window: ReplayWindow = ReplayWindow()) throws -> (gate: EnvelopeGate, sealer: EnvelopeSealer) {
        let policy = SessionPolicy(entropy: .seeded(UInt64(40 + index)))
        let gate = EnvelopeGate(keys: try world.keys(index), roster: try world.roster(index, members: members),
                                replay: try ReplayGuard(path: world.replayPath(index), window: window), sessions: policy,
                                entropy: .seeded(UInt64(70 + index)))
        let sealer = EnvelopeSealer(keys: try world.keys(index), roster: try world.roster(index), entropy: .seeded(UInt64(50 + index)),
                                    sessions: policy, replies: gate.opener)
        return (gate, sealer)
    }

    /// Device 0's short pair hello to device 1, carrying a heartbeat.
    private func shortHello(_ world: EnvelopeWorld, at time: Int64? = nil) throws -> [UInt8] {
        var (_, sealer) = try paired(world, 0)
        let envelopes = try sealer.sealFrame(frame(world, 1), to: try world.id(1), now: time ?? now)
        XCTAssertEqual(envelopes.count, 1)
        return try XCTUnwrap(envelopes.first).bytes
    }

    private func reason(_ verdict: EnvelopeVerdict) -> EnvelopeDropReason? {
        if case .dropped(let reason) = verdict { reason } else { nil }
    }

    func testAShortPairHelloCarriesItsFrameAndItsAcceptGoesShortToo() async throws {
        let world = try EnvelopeWorld(devices: 2)
        let bytes = try shortHello(world)
        XCTAssertEqual(bytes[0], HandshakeFormat.version)
        XCTAssertEqual(bytes.count, HandshakeFormat.overheadBytes + SessionMessage.pairHelloBytes + frame(world, 1).count)
        XCTAssertEqual(HandshakeFormat.overheadBytes, 66)
        let (gate, _) = try paired(world, 1)
        guard case .accepted(let opened) = gate.open(bytes, now: now) else { return XCTFail("the short hello passes") }
        XCTAssertEqual(opened.sender, try world.id(0))
        XCTAssertEqual(opened.account, world.account.userIDHash)
        XCTAssertTrue(opened.viaHandshake)
        guard case .hello(let hello)? = SessionMessage(decoding: opened.frame) else { return XCTFail("a hello inside") }
        XCTAssertEqual(hello.frame, frame(world, 1))
        XCTAssertNotNil(hello.replyIndex, "a pair hello")
        let relay = InboxRelay()
        let transport = SealedTransport(sealer: EnvelopeSealer(keys: try world.keys(1), roster: try world.roster(1), entropy: .seeded(51),
                                                               sessions: SessionPolicy(entropy: .seeded(41)), replies: gate.opener),
                                        carrier: relay, clock: ManualWallClock(), onEvent: { _ in })
        let intake = await transport.receiveSessionMessage(opened.frame, from: opened.sender, opener: gate.opener, viaHandshake: true)
        XCTAssertEqual(intake, .carried(frame(world, 1)))
        let accepts = await relay.take(try world.keys(0).inbox)
        XCTAssertEqual(accepts.map { $0[0] }, [HandshakeFormat.version], "answered in the form it came in")
        XCTAssertEqual(accepts.first?.count, HandshakeFormat.overheadBytes + SessionMessage.acceptBytes)
    }

    func testRejectEveryAlteredByte() throws {
        let world = try EnvelopeWorld(devices: 2)
        let bytes = try shortHello(world)
        let (gate, _) = try paired(world, 1)
        for position in bytes.indices {
            var altered = bytes
            altered[position] ^= 0x01
            XCTAssertNotNil(reason(gate.open(altered, now: now)), "byte \(position) altered passes")
        }
        XCTAssertEqual(gate.seenCount, 0, "nothing recorded")
        XCTAssertTrue(gate.open(bytes, now: now).isAccepted, "the unaltered envelope still passes")
    }

    func testRejectTruncatedEnvelopes() throws {
        let world = try EnvelopeWorld(devices: 2)
        let bytes = try shortHello(world)
        let (gate, _) = try paired(world, 1)
        for length in [0, 1, 2, 41, 42, HandshakeFormat.minBytes - 1] {
            XCTAssertEqual(reason(gate.open(Array(bytes.prefix(length)), now: now)), .truncated, "\(length) bytes")
        }
        for length in [HandshakeFormat.minBytes, bytes.count - 1] {
            XCTAssertEqual(reason(gate.open(Array(bytes.prefix(length)), now: now)), .unopenable, "\(length) bytes")
        }
    }

    func testRejectAReplayAndAStaleHello() throws {
        let world = try EnvelopeWorld(devices: 2)
        let bytes = try shortHello(world)
        let (gate, _) = try paired(world, 1)
        XCTAssertTrue(gate.open(bytes, now: now).isAccepted)
        XCTAssertEqual(reason(gate.open(bytes, now: now + 1)), .replayed)
        let stale = try shortHello(world, at: now - 10 * 60_000)
        let (fresh, _) = try paired(try EnvelopeWorld(devices: 2), 1)
        XCTAssertNotNil(reason(fresh.open(stale, now: now)), "another world's device")
        XCTAssertEqual(reason(gate.open(stale, now: now)), .outsideWindow)
    }

    func testRejectAHelloToAnotherDeviceFromOutsideTheRosterOrAnotherAccount() throws {
        let world = try EnvelopeWorld(devices: 3)
        var (_, sealer) = try paired(world, 0)
        let toC = try sealer.sealFrame(frame(world), to: try world.id(2), now: now)[0].bytes
        let (gateB, _) = try paired(world, 1)
        XCTAssertNotNil(reason(gateB.open(toC, now: now)), "sealed to another device")
        let (narrow, _) = try paired(world, 1, members: [1, 2])
        XCTAssertEqual(reason(narrow.open(try shortHello(world), now: now)), .notASibling, "the sender is not in the roster")
        let other = try EnvelopeWorld(devices: 2, seed: 99)
        let (foreign, _) = try paired(other, 1)
        XCTAssertNotNil(reason(foreign.open(try shortHello(world), now: now)), "another account")
        let plain = try world.gate(1)
        XCTAssertEqual(reason(plain.open(try shortHello(world), now: now)), .unknownFormat, "a gate without sessions reads none")
    }

    func testRejectAHelloOfACertificateThatExpired() throws {
        let world = try EnvelopeWorld(devices: 2)
        let shortLived = try world.addDevice(expiresAt: now / 1_000 + 60)
        var (_, sealer) = try paired(world, shortLived)
        let bytes = try sealer.sealFrame(frame(world), to: try world.id(1), now: now)[0].bytes
        XCTAssertEqual(bytes[0], HandshakeFormat.version)
        let (gate, _) = try paired(world, 1)
        XCTAssertEqual(reason(gate.open(bytes, now: now + 60_000)), .expiredCertificate)
    }

    func testTheRelaySeesNeitherTheSenderNorTheAccount() throws {
        let world = try EnvelopeWorld(devices: 2)
        let bytes = try shortHello(world)
        let sender = try world.id(0).publicKey
        for needle in [Array(sender.prefix(HandshakeFormat.referenceBytes)), Array(world.account.userIDHash.prefix(8)),
                       Array(try world.keys(0).deviceKeys.envelopePublicKey.prefix(8))] {
            let found = (0...(bytes.count - needle.count)).contains { Array(bytes[$0..<($0 + needle.count)]) == needle }
            XCTAssertFalse(found, "in the clear: \(needle)")
        }
        XCTAssertNil(HandshakeFormat.seal(frame(world), from: try world.keys(0), to: world.certificates[1], timestamp: now,
                                          wake: .silent, ephemeralSecret: [UInt8](repeating: 3, count: 32)),
                     "the form carries session messages only")
    }

    /// A sibling whose roster lacks this device drops its short hellos (`notASibling`): once the
    /// handshake timeout passes the next hello goes whole, still a pair hello, and a new epoch
    /// heard from the sibling makes hellos short again.
    func testAShortHelloLeftUnansweredIsFollowedByAWholePairHello() throws {
        let world = try EnvelopeWorld(devices: 2)
        var (_, sealer) = try paired(world, 0)
        let b = try world.id(1)
        let first = try sealer.sealFrame(frame(world), to: b, now: now)
        XCTAssertEqual(first.map { $0.bytes[0] }, [HandshakeFormat.version])
        let timeout = SessionPolicy().handshakeTimeoutMillis
        let second = try sealer.sealFrame(frame(world), to: b, now: now + timeout)
        XCTAssertEqual(second.map { $0.bytes[0] }, [EnvelopeFormat.version], "whole after the timeout")
        let (gate, _) = try paired(world, 1)
        guard case .accepted(let opened) = gate.open(second[0].bytes, now: now + timeout) else { return XCTFail("whole passes") }
        guard case .hello(let hello)? = SessionMessage(decoding: opened.frame) else { return XCTFail("a hello") }
        XCTAssertNotNil(hello.replyIndex, "still a pair hello")
        _ = sealer.receive(.hello(SessionMessage.Hello(helloID: [UInt8](repeating: 1, count: 16), ephemeral: hello.ephemeral,
                                                       epoch: [UInt8](repeating: 7, count: 16))), from: b, now: now + timeout + 1)
        let third = try sealer.sealFrame(frame(world), to: b, now: now + timeout + 2)
        XCTAssertEqual(third.first?.bytes[0], HandshakeFormat.version, "a new epoch: short again")
    }
}

private extension EnvelopeVerdict {
    var isAccepted: Bool { if case .accepted = self { true } else { false } }
}
