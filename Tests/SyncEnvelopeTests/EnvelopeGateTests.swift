import Foundation
import SQLiteStore
@testable import SyncEnvelope
import SyncKernel
import XCTest

/// The self-gate, reason by reason: each hostile or damaged envelope is dropped with its reason,
/// counted once, reported once, records nothing in the seen set, and never crashes the gate.
final class EnvelopeGateTests: XCTestCase {
    private let now = EnvelopeWorld.now

    private func heartbeat(_ world: EnvelopeWorld) -> [UInt8] {
        SyncFrame(account: world.account.userIDHash, schema: SchemaFingerprint(value: 1), body: .heartbeat).encoded()
    }

    /// Builds an inside by hand and seals it to `envelopeKey`, as an attacker holding the given
    /// keys could.
    private func forge(_ world: EnvelopeWorld, certificate: SenderCertificate, signer: DeviceKeys, macKey: [UInt8],
                       recipient: DeviceID, sealTo envelopeKey: [UInt8], timestamp: Int64? = nil) throws -> [UInt8] {
        let inside = try XCTUnwrap(EnvelopeFormat.inside(certificate: certificate, recipient: recipient, frameID: world.entropy.bytes(16),
                                                         timestamp: timestamp ?? now, frame: heartbeat(world),
                                                         signingKey: signer.signing.secretKey, macKey: macKey))
        return try seal(inside, to: envelopeKey, world)
    }

    private func seal(_ inside: [UInt8], to envelopeKey: [UInt8], _ world: EnvelopeWorld) throws -> [UInt8] {
        [1, 0] + (try XCTUnwrap(Sodium.seal(inside, to: envelopeKey, ephemeralSeed: world.entropy.bytes(32))))
    }

    /// Opens `envelope` at `at` and checks it is dropped for `reason`, counted and reported once,
    /// with nothing recorded.
    private func assertDropped(_ gate: EnvelopeGate, _ envelope: [UInt8], _ reason: EnvelopeDropReason, at: Int64? = nil,
                               _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
        let seen = gate.seenCount
        let before = gate.dropCounts[reason] ?? 0
        XCTAssertEqual(gate.open(envelope, now: at ?? now), .dropped(reason), message, file: file, line: line)
        XCTAssertEqual(gate.dropCounts[reason], before + 1, "counted under its reason", file: file, line: line)
        XCTAssertEqual(gate.drainEvents(), [.dropped(reason: reason, bytes: envelope.count)], "reported once", file: file, line: line)
        XCTAssertEqual(gate.seenCount, seen, "a dropped envelope records no frame id", file: file, line: line)
    }

    func testRejectAFrameSealedToAnotherDevice() throws {
        let world = try EnvelopeWorld()
        let envelope = try world.sealer(0).seal(heartbeat(world), to: world.id(2), now: now)
        assertDropped(try world.gate(1), envelope.bytes, .unopenable)
    }

    func testRejectAFrameFromAnotherAccount() throws {
        let world = try EnvelopeWorld()
        let other = try EnvelopeWorld(seed: 99)
        let otherKeys = try other.keys(0)
        let envelope = try forge(other, certificate: other.certificates[0], signer: other.devices[0], macKey: otherKeys.channel.mac,
                                 recipient: world.id(1), sealTo: world.devices[1].envelopePublicKey)
        assertDropped(try world.gate(1), envelope, .foreignAccount)
    }

    func testRejectAForgedCertificate() throws {
        let world = try EnvelopeWorld()
        let gate = try world.gate(1)
        let mac = try world.keys(0).channel.mac
        let intruder = try DeviceKeys.generate(entropy: world.entropy)
        let fakeIssuer = try XCTUnwrap(Sodium.signingKeyPair(seed: world.entropy.bytes(32)))
        let body = SenderCertificate.body(device: intruder.device, envelopeKey: intruder.envelopePublicKey,
                                          userIDHash: world.account.userIDHash, expiresAt: EnvelopeWorld.expiry)
        let signedByAnother = SenderCertificate(device: intruder.device, envelopeKey: intruder.envelopePublicKey,
                                                userIDHash: world.account.userIDHash, expiresAt: EnvelopeWorld.expiry,
                                                signature: try XCTUnwrap(Sodium.sign(SenderCertificate.signedMessage(body: body),
                                                                                     secretKey: fakeIssuer.secretKey)))
        assertDropped(gate, try forge(world, certificate: signedByAnother, signer: intruder, macKey: mac, recipient: world.id(1),
                                      sealTo: world.devices[1].envelopePublicKey), .badCertificate)
        let genuine = world.certificates[0]
        let extended = SenderCertificate(device: genuine.device, envelopeKey: genuine.envelopeKey, userIDHash: genuine.userIDHash,
                                         expiresAt: genuine.expiresAt + 86_400, signature: genuine.signature)
        assertDropped(gate, try forge(world, certificate: extended, signer: world.devices[0], macKey: mac, recipient: world.id(1),
                                      sealTo: world.devices[1].envelopePublicKey), .badCertificate)
        XCTAssertEqual(gate.dropCounts, [.badCertificate: 2])
    }

    func testRejectAnExpiredCertificate() throws {
        let world = try EnvelopeWorld()
        let shortLived = try world.addDevice(expiresAt: now / 1_000 + 60)
        let envelope = try world.sealer(shortLived).seal(heartbeat(world), to: world.id(1), now: now)
        let gate = try world.gate(1)
        assertDropped(gate, envelope.bytes, .expiredCertificate, at: now + 60_000)
        XCTAssertEqual(gate.open(envelope.bytes, now: now + 59_999), .accepted(try XCTUnwrap(opened(envelope.bytes, world))),
                       "valid until its expiry")
    }

    /// What a fresh gate of device 1 opens `bytes` to (a throwaway seen set).
    private func opened(_ bytes: [UInt8], _ world: EnvelopeWorld) throws -> OpenedEnvelope? {
        let gate = EnvelopeGate(keys: try world.keys(1), roster: try world.roster(1), replay: try ReplayGuard(path: ":memory:"))
        guard case .accepted(let opened) = gate.open(bytes, now: now) else { return nil }
        return opened
    }

    func testRejectABadMAC() throws {
        let world = try EnvelopeWorld()
        let wrongSeed = try EnvelopeKeys(accountSeed: world.entropy.bytes(32), issuerPublicKey: world.account.issuerPublicKey,
                                         device: world.devices[0], certificate: world.certificates[0])
        let sealer = EnvelopeSealer(keys: wrongSeed, roster: try world.roster(0), entropy: world.entropy)
        assertDropped(try world.gate(1), try sealer.seal(heartbeat(world), to: world.id(1), now: now).bytes, .badMAC)
    }

    func testRejectASenderOutsideTheRosterOrThisDeviceItself() throws {
        let world = try EnvelopeWorld()
        let gate = try world.gate(1, members: [1, 2])
        assertDropped(gate, try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now).bytes, .notASibling)
        let mac = try world.keys(1).channel.mac
        assertDropped(gate, try forge(world, certificate: world.certificates[1], signer: world.devices[1], macKey: mac,
                                      recipient: world.id(1), sealTo: world.devices[1].envelopePublicKey), .notASibling)
    }

    func testRejectASiblingPresentingAnotherDevicesCertificate() throws {
        let world = try EnvelopeWorld()
        let envelope = try forge(world, certificate: world.certificates[0], signer: world.devices[2],
                                 macKey: try world.keys(2).channel.mac, recipient: world.id(1), sealTo: world.devices[1].envelopePublicKey)
        assertDropped(try world.gate(1), envelope, .badSignature)
    }

    func testRejectAnEnvelopeASiblingResealedToAnotherDevice() throws {
        let world = try EnvelopeWorld()
        let toTwo = try world.sealer(0).seal(heartbeat(world), to: world.id(2), now: now)
        let inside = try XCTUnwrap(Sodium.open(toTwo.bytes[2...], publicKey: world.devices[2].envelopePublicKey,
                                               secretKey: world.devices[2].envelopeSecretKey))
        assertDropped(try world.gate(1), try seal(inside, to: world.devices[1].envelopePublicKey, world), .misaddressed)
    }

    func testRejectAReplayedFrameAlsoAfterARestart() throws {
        let world = try EnvelopeWorld()
        let envelope = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now).bytes
        var gate: EnvelopeGate? = try world.gate(1)
        XCTAssertNotNil(try opened(envelope, world))
        guard case .accepted = gate?.open(envelope, now: now) else { return XCTFail("the first delivery is accepted") }
        if let gate { assertDropped(gate, envelope, .replayed, at: now + 1_000) }
        gate = nil
        let restarted = try world.gate(1)
        XCTAssertEqual(restarted.seenCount, 1, "the seen set is on disk")
        assertDropped(restarted, envelope, .replayed, at: now + 2_000)
        let fresh = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now + 2_000).bytes
        guard case .accepted = restarted.open(fresh, now: now + 2_000) else { return XCTFail("a new frame still passes") }
    }

    func testRejectAFrameOutsideTheWindow() throws {
        let world = try EnvelopeWorld()
        let window = ReplayWindow()
        let gate = try world.gate(1)
        let old = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now).bytes
        assertDropped(gate, old, .outsideWindow, at: now + window.pastMillis + 1)
        let ahead = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now + window.futureMillis + 1).bytes
        assertDropped(gate, ahead, .outsideWindow)
        guard case .accepted = gate.open(ahead, now: now + 1) else { return XCTFail("the edge of the window is inside it") }
    }

    func testRejectTruncatedAndOversizedEnvelopesBeforeOpeningThem() throws {
        let world = try EnvelopeWorld()
        let gate = try world.gate(1)
        let envelope = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now).bytes
        assertDropped(gate, [], .truncated)
        assertDropped(gate, Array(envelope.prefix(SealedEnvelope.overheadBytes - 1)), .truncated)
        assertDropped(gate, Array(envelope.dropLast()), .unopenable)
        assertDropped(gate, envelope + [0], .unopenable)
        let oversized = [UInt8](repeating: 1, count: SealedEnvelope.maxBytes + 1)
        assertDropped(gate, oversized, .oversized)
        let keyless = EnvelopeGate(keys: nil, roster: try world.roster(1), replay: try ReplayGuard(path: ":memory:"))
        assertDropped(keyless, oversized, .oversized, at: now)
        assertDropped(keyless, [1, 0] + [UInt8](repeating: 0, count: 400), .noKeyMaterial)
    }

    func testRejectEverythingWithoutKeyMaterial() throws {
        let world = try EnvelopeWorld()
        let gate = EnvelopeGate(keys: nil, roster: try world.roster(1), replay: try ReplayGuard(path: world.replayPath(1)))
        let envelope = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now).bytes
        assertDropped(gate, envelope, .noKeyMaterial)
        XCTAssertEqual(gate.acceptedCount, 0)
    }

    func testRejectAnUnknownFormatOrWakeClass() throws {
        let world = try EnvelopeWorld()
        let gate = try world.gate(1)
        var envelope = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now).bytes
        envelope[0] = 3
        assertDropped(gate, envelope, .unknownFormat)
        envelope[0] = 1
        envelope[1] = 7
        assertDropped(gate, envelope, .unknownFormat)
    }

    func testRejectAMalformedInside() throws {
        let world = try EnvelopeWorld()
        let gate = try world.gate(1)
        let key = world.devices[1].envelopePublicKey
        let real = try XCTUnwrap(Sodium.open(try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now).bytes[2...],
                                             publicKey: key, secretKey: world.devices[1].envelopeSecretKey))
        assertDropped(gate, try seal([2] + real.dropFirst(), to: key, world), .malformed)
        var badCertificateVersion = real
        badCertificateVersion[1] = 9
        assertDropped(gate, try seal(badCertificateVersion, to: key, world), .malformed)
        var expiryBeyondRange = real
        expiryBeyondRange[1 + 97] = 0x80
        assertDropped(gate, try seal(expiryBeyondRange, to: key, world), .malformed)
        assertDropped(gate, try seal(Array(real.prefix(EnvelopeFormat.innerHeaderBytes + 95)), to: key, world), .truncated,
                      "an inside shorter than its fixed fields makes an envelope below the smallest one")
    }

    func testRejectWhenTheSeenSetCannotRecord() throws {
        let world = try EnvelopeWorld()
        let gate = try world.gate(1)
        let saboteur = try SQLiteConnection<SyncKernelError>(path: world.replayPath(1))
        try saboteur.execute("DROP TABLE seen")
        saboteur.close()
        assertDropped(gate, try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now).bytes, .replayStoreUnavailable)
    }

    func testTheSeenSetStaysBoundedAndNeverReopensAReplay() throws {
        let world = try EnvelopeWorld()
        var window = ReplayWindow()
        window.maxEntries = 16
        let gate = try world.gate(1, window: window)
        let sealer = try world.sealer(0)
        var envelopes: [[UInt8]] = []
        for index in 0..<60 {
            let envelope = try sealer.seal(heartbeat(world), to: world.id(1), now: now + Int64(index)).bytes
            guard case .accepted = gate.open(envelope, now: now + 100) else { return XCTFail("frame \(index) is fresh") }
            XCTAssertLessThanOrEqual(gate.seenCount, 16)
            envelopes.append(envelope)
        }
        for (index, envelope) in envelopes.enumerated() {
            guard case .dropped(let reason) = gate.open(envelope, now: now + 100) else { return XCTFail("replay \(index) passed") }
            XCTAssertTrue([.replayed, .outsideWindow].contains(reason), "replay \(index): \(reason)")
        }
        let later = try sealer.seal(heartbeat(world), to: world.id(1), now: now + 100).bytes
        guard case .accepted = gate.open(later, now: now + 100) else { return XCTFail("a newer frame still passes") }
    }

    func testRejectAReplayAfterTheClockGoesBack() throws {
        let world = try EnvelopeWorld()
        var window = ReplayWindow()
        window.maxEntries = 4
        let gate = try world.gate(1, window: window)
        let sealer = try world.sealer(0)
        let first = try sealer.seal(heartbeat(world), to: world.id(1), now: now).bytes
        guard case .accepted = gate.open(first, now: now) else { return XCTFail("the first frame is fresh") }
        let later = now + window.pastMillis + 60_000
        for index in 0..<4 {
            let envelope = try sealer.seal(heartbeat(world), to: world.id(1), now: later + Int64(index)).bytes
            guard case .accepted = gate.open(envelope, now: later) else { return XCTFail("frame \(index) is fresh") }
        }
        XCTAssertEqual(gate.seenCount, 4, "the first frame's id left with the window")
        assertDropped(gate, first, .outsideWindow, at: now + 1_000, "its timestamp is at the floor: a clock gone back lets it in no more")
    }

    func testRejectASeenSetFileThatIsSomethingElse() throws {
        let world = try EnvelopeWorld()
        let path = world.path("other.sqlite")
        let other = try SQLiteConnection<SyncKernelError>(path: path)
        try other.execute("CREATE TABLE notes(id INTEGER)")
        other.close()
        XCTAssertThrowsError(try ReplayGuard(path: path)) { XCTAssertEqual(($0 as? SyncKernelError)?.code, .foreignDatabase) }
    }

    func testDropReasonCodesAreStableAndInTheGatesOrder() {
        XCTAssertEqual(EnvelopeDropReason.all.map(\.description), [
            "SE101 oversized", "SE102 truncated", "SE103 unknownFormat", "SE104 noKeyMaterial", "SE105 unopenable",
            "SE106 malformed", "SE107 foreignAccount", "SE109 expiredCertificate", "SE110 badMAC", "SE108 badCertificate",
            "SE111 notASibling", "SE112 badSignature", "SE113 misaddressed", "SE114 outsideWindow", "SE115 replayed",
            "SE116 replayStoreUnavailable", "SE117 unknownSession", "SE118 sessionExpired", "SE119 badSessionTag",
        ])
        XCTAssertEqual(Set(EnvelopeDropReason.all).count, EnvelopeDropReason.all.count)
    }

    func testEveryDropReasonIsFoundByItsCodeStringAndNoOther() {
        for reason in EnvelopeDropReason.all {
            XCTAssertEqual(EnvelopeDropReason(rawValue: reason.rawValue)?.name, reason.name)
        }
        XCTAssertEqual(EnvelopeDropReason(rawValue: "SE115"), .replayed)
        XCTAssertNil(EnvelopeDropReason(rawValue: "SE120"))
        XCTAssertNil(EnvelopeDropReason(rawValue: "SK101"))
    }
}
