@testable import SyncDevice
import SyncEnvelope
import SyncKernel
import XCTest

/// The screen on the relay's thread checks envelopes ahead of the inbox, so a session envelope on
/// a reply session can arrive before the inbox took in the accept that files it: it is held, not
/// dropped, and checked again in its turn.
final class InboxScreenTests: XCTestCase {
    /// Two devices with sealers that pair their handshakes: device 0's pair hello has been
    /// accepted by device 1, which holds the accept (a whole envelope to device 0) and then a
    /// frame on the reply session, both not yet seen by device 0.
    private struct Handshake {
        let keys: [EnvelopeKeys]
        let gates: [EnvelopeGate]
        var sealers: [EnvelopeSealer]
        let accept: SealedEnvelope
        let reply: SealedEnvelope
        let screen: InboxScreen
        let now: Int64
    }

    private static let replyFrame = Array("the reply".utf8)

    private func handshake(_ world: DeviceWorld) throws -> Handshake {
        let keys = try (0..<2).map { try world.account.envelopeKeys(name: world.names[$0]) }
        let rosters = try keys.map { try world.account.roster(for: $0) }
        let policies = (0..<2).map { SessionPolicy(entropy: .seeded(UInt64(10 + $0))) }
        let gates = try (0..<2).map {
            EnvelopeGate(keys: keys[$0], roster: rosters[$0], replay: try ReplayGuard(path: ":memory:"), sessions: policies[$0],
                         entropy: .seeded(UInt64(20 + $0)))
        }
        var sealers = (0..<2).map {
            EnvelopeSealer(keys: keys[$0], roster: rosters[$0], entropy: .seeded(UInt64(30 + $0)), sessions: policies[$0],
                           replies: gates[$0].opener)
        }
        let clock = SystemWallClock()
        let now = clock.millisecondsSince1970
        let first = Array("the first frame".utf8)
        let hello = try sealers[0].sealFrame(first, to: keys[1].device, now: now)
        XCTAssertEqual(hello.count, 1, "the pair hello carries the first frame")
        let verdict = gates[1].open(hello[0].bytes, now: now)
        let opened = try XCTUnwrap({ if case .accepted(let opened) = verdict { opened } else { nil } }(), "the hello passes: \(verdict)")
        let decoded = SessionMessage(decoding: opened.frame)
        let message = try XCTUnwrap({ if case .hello(let hello) = decoded { hello } else { nil } }(), "a hello")
        XCTAssertEqual(message.frame, first)
        XCTAssertNotNil(message.replyIndex)
        let (accept, replyKey) = try XCTUnwrap(gates[1].opener.acceptSession(message, from: keys[0].device, now: now))
        let acceptEnvelope = try sealers[1].seal(SessionMessage.accept(accept).encoded(), to: keys[0].device, now: now)
        sealers[1].openReply(to: keys[0].device, for: message, key: try XCTUnwrap(replyKey), now: now)
        let reply = try sealers[1].sealFrame(Self.replyFrame, to: keys[0].device, now: now)
        XCTAssertEqual(reply.map { $0.bytes[0] }, [SessionFormat.version], "device 1 sends on the reply session at once")
        let screen = InboxScreen(opener: gates[0].opener, clock: clock, buffer: 8, monitor: DeviceMonitor(clock: clock),
                                 reportsEachDrop: false)
        return Handshake(keys: keys, gates: gates, sealers: sealers, accept: acceptEnvelope, reply: reply[0], screen: screen, now: now)
    }

    private func queued(_ screen: InboxScreen) async -> [InboxScreen.Screened] {
        screen.finish()
        var items: [InboxScreen.Screened] = []
        for await item in screen.checked { items.append(item) }
        return items
    }

    func testASessionEnvelopeThatOvertakesItsAcceptIsHeldAndPassesOnceTheAcceptIsIn() async throws {
        let world = try DeviceWorld(devices: 2)
        var pair = try handshake(world)
        XCTAssertEqual(pair.screen.screen(pair.accept.bytes), .consumed)
        XCTAssertEqual(pair.screen.screen(pair.reply.bytes), .consumed)
        XCTAssertEqual(pair.screen.snapshot, [:], "nothing dropped: the session envelope waits for its accept")
        let items = await queued(pair.screen)
        XCTAssertEqual(items.count, 2)
        let accept = try XCTUnwrap(pair.screen.resolve(items[0]).envelope)
        guard case .accepted(let opened) = pair.gates[0].admit(accept, now: pair.now) else { return XCTFail("the accept is admitted") }
        let message = try XCTUnwrap(SessionMessage(decoding: opened.frame))
        XCTAssertTrue(pair.sealers[0].receive(message, from: pair.keys[1].device, now: pair.now), "the accept opens device 0's session")
        let resolved = pair.screen.resolve(items[1])
        XCTAssertNil(resolved.replyLost)
        let reply = try XCTUnwrap(resolved.envelope, "checked again once the accept filed the reply session")
        XCTAssertEqual(reply.frame, Self.replyFrame)
        XCTAssertTrue(reply.viaSession)
        XCTAssertEqual(pair.screen.snapshot, [:])
        let later = try pair.sealers[0].sealFrame(Array("on the session".utf8), to: pair.keys[1].device, now: pair.now)
        XCTAssertEqual(later.map { $0.bytes[0] }, [SessionFormat.version], "and device 0 sends on its own session")
    }

    func testAHeldEnvelopeWhoseAcceptNeverCameIsDroppedAsAnUnknownSession() async throws {
        let world = try DeviceWorld(devices: 2)
        let pair = try handshake(world)
        XCTAssertEqual(pair.screen.screen(pair.reply.bytes), .consumed)
        let items = await queued(pair.screen)
        XCTAssertEqual(items.count, 1)
        let resolved = pair.screen.resolve(items[0])
        XCTAssertNil(resolved.envelope)
        let lost = try XCTUnwrap(resolved.replyLost, "the sibling that sends on a reply session whose accept was lost")
        XCTAssertEqual(lost.sibling, pair.keys[1].device)
        XCTAssertEqual(pair.screen.snapshot, [.unknownSession: 1])
        var sealer = pair.sealers[0]
        let again = try XCTUnwrap(try sealer.replyLost(lost, now: pair.now + 1), "the hello goes again at once")
        XCTAssertEqual(again.bytes[0], HandshakeFormat.version, "in the short form the policy sends")
        XCTAssertNil(try sealer.replyLost(lost, now: pair.now + 2), "once per hello: the old reply session's envelopes change nothing")
        var responder = pair.sealers[1]
        guard case .accepted(let opened) = pair.gates[1].open(again.bytes, now: pair.now + 1) else { return XCTFail("the new hello passes") }
        _ = responder.receive(try XCTUnwrap(SessionMessage(decoding: opened.frame)), from: pair.keys[0].device, now: pair.now + 1)
        XCTAssertFalse(responder.hasSession(to: pair.keys[0].device, now: pair.now + 1),
                       "a hello ends the reply session the lost accept would have opened")
    }

    func testASessionEnvelopeUnderAnIndexNoHelloReservedIsDroppedAtOnce() async throws {
        let world = try DeviceWorld(devices: 2)
        let pair = try handshake(world)
        var stray = pair.reply.bytes
        stray[2] ^= 0xff
        XCTAssertEqual(pair.screen.screen(stray), .consumed)
        XCTAssertEqual(pair.screen.snapshot, [.unknownSession: 1], "refused where it arrived, never queued")
        let items = await queued(pair.screen)
        XCTAssertTrue(items.isEmpty)
    }
}
