import CSodium
import Foundation
import NotebookNamespace
@testable import SyncEnvelope
import SyncKernel
import XCTest

/// Sealing and opening: a frame reaches exactly its sibling, with its sender, and the outside
/// shows the relay only a subject and a wake class.
final class EnvelopeRoundTripTests: XCTestCase {
    private func frame(_ world: EnvelopeWorld, _ body: SyncFrame.Body) -> [UInt8] {
        SyncFrame(account: world.account.userIDHash, schema: SchemaFingerprint(value: 1), body: body).encoded()
    }

    func testASealedFrameOpensAtItsRecipientWithItsSender() throws {
        let world = try EnvelopeWorld()
        let bytes = frame(world, .heartbeat)
        let envelope = try world.sealer(0).seal(bytes, to: world.id(1), now: EnvelopeWorld.now)
        XCTAssertEqual(envelope.subject, try world.keys(1).inbox, "published to the recipient's own inbox")
        let gate = try world.gate(1)
        guard case .accepted(let opened) = gate.open(envelope.bytes, now: EnvelopeWorld.now + 20) else {
            return XCTFail("a sibling's envelope is accepted")
        }
        XCTAssertEqual(opened.sender, try world.id(0))
        XCTAssertEqual(opened.frame, bytes)
        XCTAssertEqual(opened.timestamp, EnvelopeWorld.now)
        XCTAssertEqual(opened.frameID.count, 16)
        XCTAssertEqual(gate.acceptedCount, 1)
        XCTAssertEqual(gate.dropCounts, [:])
        XCTAssertEqual(gate.drainEvents(), [], "an accepted envelope reports nothing")
        XCTAssertEqual(gate.seenCount, 1)
        XCTAssertEqual(try SyncFrame(decoding: opened.frame, account: world.account.userIDHash).body, .heartbeat)
    }

    func testEveryFrameOfAStreamGetsItsOwnFrameIDAndOpensOnce() throws {
        let world = try EnvelopeWorld()
        let sealer = try world.sealer(2)
        let gate = try world.gate(0)
        var ids: Set<[UInt8]> = []
        for index in 0..<40 {
            let bytes = frame(world, .stateDigest(digest: [UInt8](repeating: UInt8(index), count: 40), probe: index % 2 == 0))
            let envelope = try sealer.seal(bytes, to: world.id(0), now: EnvelopeWorld.now + Int64(index))
            guard case .accepted(let opened) = gate.open(envelope.bytes, now: EnvelopeWorld.now + Int64(index)) else {
                return XCTFail("frame \(index) is accepted")
            }
            XCTAssertEqual(opened.frame, bytes)
            ids.insert(opened.frameID)
        }
        XCTAssertEqual(ids.count, 40)
        XCTAssertEqual(gate.seenCount, 40)
    }

    func testTheSealedBoxIsLibsodiumsAndRepeatsUnderASeededSource() throws {
        let first = try EnvelopeWorld(seed: 3)
        let second = try EnvelopeWorld(seed: 3)
        let bytes = frame(first, .heartbeat)
        let one = try first.sealer(0).seal(bytes, to: first.id(1), now: EnvelopeWorld.now)
        let two = try second.sealer(0).seal(bytes, to: second.id(1), now: EnvelopeWorld.now)
        XCTAssertEqual(one, two, "one seed, one envelope: a failing seed replays")
        let keys = first.devices[1]
        var plaintext = [UInt8](repeating: 0, count: one.bytes.count - 2 - Int(crypto_box_sealbytes()))
        let box = Array(one.bytes.dropFirst(2))
        XCTAssertEqual(crypto_box_seal_open(&plaintext, box, UInt64(box.count), keys.envelopePublicKey, keys.envelopeSecretKey), 0,
                       "libsodium's own crypto_box_seal_open opens the box")
        var sealed = [UInt8](repeating: 0, count: 5 + Int(crypto_box_sealbytes()))
        XCTAssertEqual(crypto_box_seal(&sealed, [1, 2, 3, 4, 5], 5, keys.envelopePublicKey), 0)
        XCTAssertEqual(Sodium.open(sealed[...], publicKey: keys.envelopePublicKey, secretKey: keys.envelopeSecretKey), [1, 2, 3, 4, 5])
    }

    func testTheOutsideShowsOnlyTheSubjectAndOneWakeClassForEveryKind() throws {
        let world = try EnvelopeWorld()
        let sealer = try world.sealer(0)
        let request = ReconcileRequest(namespace: "notebook", buckets: [], keys: [[1, 2, 3]])
        let response = ReconcileResponse(namespace: "notebook", rows: [], tombstones: [])
        let bodies: [SyncFrame.Body] = [.heartbeat, .stateDigest(digest: [7, 7, 7], probe: true), .reconcileRequest(request),
                                        .reconcileResponse(response)]
        let secrets = try [world.account.userIDHash, world.account.issuerPublicKey, world.id(0).publicKey, world.id(1).publicKey,
                       world.devices[0].envelopePublicKey, world.devices[1].envelopePublicKey]
        for body in bodies {
            let bytes = frame(world, body)
            let envelope = try sealer.seal(bytes, to: world.id(1), now: EnvelopeWorld.now)
            XCTAssertEqual(envelope.wake, .silent, body.kind)
            XCTAssertEqual(Array(envelope.bytes.prefix(2)), [1, WakeClass.silent.rawValue], body.kind)
            XCTAssertEqual(envelope.bytes.count, bytes.count + SealedEnvelope.overheadBytes, "the length is the frame's and a fixed overhead")
            for secret in secrets + [Array(bytes.prefix(24)), Array(body.kind.utf8)] {
                XCTAssertNil(envelope.bytes.firstRange(of: secret.prefix(12)), "the outside shows nothing of \(body.kind)'s sender, account or frame")
            }
            for value in secrets.map(Hex.encode) + [body.kind] {
                XCTAssertFalse(envelope.subject.value.contains(value.prefix(8)))
            }
        }
        XCTAssertEqual(SealedEnvelope.overheadBytes, 372)
        XCTAssertEqual(SealedEnvelope.maxBytes, SyncFrame.maxFrameBytes + 372)
        let subject = try sealer.seal(frame(world, .heartbeat), to: world.id(1), now: EnvelopeWorld.now).subject.value
        XCTAssertTrue(subject.hasPrefix(RecipientSubject.prefix))
        XCTAssertEqual(subject.count, RecipientSubject.prefix.count + 32)
        XCTAssertNotEqual(try world.keys(0).inbox, try world.keys(1).inbox)
        let other = try EnvelopeWorld(seed: 8)
        XCTAssertNotEqual(try other.keys(0).subject(of: world.id(1)), try world.keys(0).subject(of: world.id(1)),
                          "the subject is keyed by the account seed: another account names the same device differently")
    }

    func testRejectSealingWithoutKeysToAStrangerOrTooLargeOrExpired() throws {
        let world = try EnvelopeWorld()
        let bytes = frame(world, .heartbeat)
        let keyless = EnvelopeSealer(keys: nil, roster: try world.roster(0))
        XCTAssertThrowsError(try keyless.seal(bytes, to: world.id(1), now: EnvelopeWorld.now)) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .keyMaterialMissing)
        }
        let stranger = try EnvelopeWorld(seed: 9)
        XCTAssertThrowsError(try world.sealer(0).seal(bytes, to: stranger.id(0), now: EnvelopeWorld.now)) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .unknownSibling)
        }
        XCTAssertThrowsError(try world.sealer(0).seal(bytes, to: world.id(0), now: EnvelopeWorld.now)) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .unknownSibling, "never to itself")
        }
        let huge = [UInt8](repeating: 0, count: SyncFrame.maxFrameBytes + 1)
        XCTAssertThrowsError(try world.sealer(0).seal(huge, to: world.id(1), now: EnvelopeWorld.now)) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .limitExceeded)
        }
        XCTAssertThrowsError(try world.sealer(0).seal(bytes, to: world.id(1), now: EnvelopeWorld.expiry * 1_000)) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .invalidCertificate, "not under its own expired certificate")
        }
    }

    func testTheLargestFrameSealsAndOpens() throws {
        let world = try EnvelopeWorld(devices: 2)
        let largest = [UInt8](repeating: 0xa5, count: SyncFrame.maxFrameBytes)
        let envelope = try world.sealer(0).seal(largest, to: world.id(1), now: EnvelopeWorld.now)
        XCTAssertEqual(envelope.bytes.count, SealedEnvelope.maxBytes)
        guard case .accepted(let opened) = try world.gate(1).open(envelope.bytes, now: EnvelopeWorld.now) else {
            return XCTFail("the largest legitimate envelope opens")
        }
        XCTAssertEqual(opened.frame.count, largest.count)
    }
}
