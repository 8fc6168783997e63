import Foundation
import SQLiteStore
@testable import SyncEnvelope
import SyncKernel
import XCTest

/// The roster gap closed: a learning gate accepts a device its account certified that is not in
/// its roster (one that joined through another sibling) once an envelope of it passed every other
/// check, and hands its certificate on once; everything the gate refused before it still refuses.
final class SiblingLearningTests: XCTestCase {
    private let now = EnvelopeWorld.now

    private func heartbeat(_ world: EnvelopeWorld) -> [UInt8] {
        SyncFrame(account: world.account.userIDHash, schema: SchemaFingerprint(value: 1), body: .heartbeat).encoded()
    }

    private func learningGate(_ world: EnvelopeWorld, _ index: Int, members: [Int]) throws -> EnvelopeGate {
        EnvelopeGate(keys: try world.keys(index), roster: try world.roster(index, members: members),
                     replay: try ReplayGuard(path: world.replayPath(index)), learnsSiblings: true)
    }

    func testALearningGateAcceptsACertifiedDeviceOutsideItsRosterAndReportsItOnce() throws {
        let world = try EnvelopeWorld()
        let gate = try learningGate(world, 1, members: [1, 2])
        XCTAssertFalse(gate.roster.contains(try world.id(0)))
        let first = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now).bytes
        guard case .accepted(let opened) = gate.open(first, now: now) else { return XCTFail("a certified device of the account is accepted") }
        XCTAssertEqual(opened.sender, try world.id(0))
        XCTAssertEqual(gate.drainLearned(), [world.certificates[0]], "learned once")
        XCTAssertTrue(gate.roster.contains(try world.id(0)))
        let second = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now + 1).bytes
        guard case .accepted = gate.open(second, now: now + 1) else { return XCTFail("a learned sibling stays accepted") }
        XCTAssertEqual(gate.drainLearned(), [], "a known sibling is not learned again")
        XCTAssertEqual(gate.drainEvents(), [])
    }

    func testRejectWhatAGateRefusedBeforeAlsoWhenItLearns() throws {
        let world = try EnvelopeWorld()
        let gate = try learningGate(world, 1, members: [1, 2])
        // This device itself.
        let own = try XCTUnwrap(EnvelopeFormat.inside(certificate: world.certificates[1], recipient: world.id(1),
                                                      frameID: world.entropy.bytes(16), timestamp: now, frame: heartbeat(world),
                                                      signingKey: world.devices[1].signing.secretKey, macKey: world.keys(1).channel.mac))
        let ownEnvelope = [1, 0] + (try XCTUnwrap(Sodium.seal(own, to: world.devices[1].envelopePublicKey, ephemeralSeed: world.entropy.bytes(32))))
        XCTAssertEqual(gate.open(ownEnvelope, now: now), .dropped(.notASibling))
        // Another account's device.
        let other = try EnvelopeWorld(seed: 99)
        let foreign = try XCTUnwrap(EnvelopeFormat.inside(certificate: other.certificates[0], recipient: world.id(1),
                                                          frameID: world.entropy.bytes(16), timestamp: now, frame: heartbeat(world),
                                                          signingKey: other.devices[0].signing.secretKey, macKey: other.keys(0).channel.mac))
        let foreignEnvelope = [1, 0] + (try XCTUnwrap(Sodium.seal(foreign, to: world.devices[1].envelopePublicKey,
                                                                  ephemeralSeed: world.entropy.bytes(32))))
        XCTAssertEqual(gate.open(foreignEnvelope, now: now), .dropped(.foreignAccount))
        // A certified device's certificate presented by a signer that does not hold its key.
        let stolen = try XCTUnwrap(EnvelopeFormat.inside(certificate: world.certificates[0], recipient: world.id(1),
                                                         frameID: world.entropy.bytes(16), timestamp: now, frame: heartbeat(world),
                                                         signingKey: world.devices[2].signing.secretKey, macKey: world.keys(2).channel.mac))
        let stolenEnvelope = [1, 0] + (try XCTUnwrap(Sodium.seal(stolen, to: world.devices[1].envelopePublicKey,
                                                                 ephemeralSeed: world.entropy.bytes(32))))
        XCTAssertEqual(gate.open(stolenEnvelope, now: now), .dropped(.badSignature))
        // An envelope outside the replay window teaches nothing either.
        let late = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now - 3_600_000).bytes
        XCTAssertEqual(gate.open(late, now: now), .dropped(.outsideWindow))
        XCTAssertEqual(gate.drainLearned(), [], "nothing dropped is learned")
        XCTAssertFalse(gate.roster.contains(try world.id(0)))
        // A gate that does not learn keeps dropping the same device.
        let strict = try world.gate(2, members: [1, 2])
        XCTAssertEqual(strict.open(try world.sealer(0).seal(heartbeat(world), to: world.id(2), now: now).bytes, now: now), .dropped(.notASibling))
        XCTAssertEqual(strict.drainLearned(), [])
    }

    func testASealerLearnsOnlyCertificatesOfItsAccountAndSealsTheFirstRequestAsAWake() throws {
        let world = try EnvelopeWorld()
        var sealer = EnvelopeSealer(keys: try world.keys(1), roster: try world.roster(1, members: [1, 2]), entropy: world.entropy)
        XCTAssertThrowsError(try sealer.seal(heartbeat(world), to: world.id(0), now: now)) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .unknownSibling)
        }
        let other = try EnvelopeWorld(seed: 99)
        XCTAssertThrowsError(try sealer.learn(other.certificates[0])) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .invalidCertificate)
        }
        try sealer.learn(world.certificates[0])
        let wake = try sealer.seal(heartbeat(world), to: world.id(0), now: now, wake: .sync)
        XCTAssertEqual(wake.bytes[1], WakeClass.sync.rawValue)
        XCTAssertEqual(wake.wake, .sync)
        guard case .accepted = try world.gate(0).open(wake.bytes, now: now) else { return XCTFail("a wake-class envelope opens") }
        XCTAssertEqual(try sealer.seal(heartbeat(world), to: world.id(0), now: now).bytes[1], WakeClass.silent.rawValue)
    }
}
