import Foundation
import NotebookNamespace
@testable import SyncEnvelope
import SyncKernel
import TestServerSupport
import XCTest

/// The envelope layer between `ReplicaHost`s and a relay, as a device runs it: frames leave
/// through `SealedTransport`, arrive through `SealedReceiver`, and only what the gate accepts
/// reaches a replica and its store.
final class EnvelopePipelineTests: XCTestCase {
    /// One device's running parts.
    private struct Device {
        let host: ReplicaHost
        let receiver: SealedReceiver
        let inbox: RecipientSubject
        let replicaEvents: Recorder<ReplicaEvent>
        let envelopeEvents: Recorder<EnvelopeEvent>
    }

    private let now = EnvelopeWorld.now

    /// Device `index` of `world` with a notebook store, its roster limited to `members` (all by default).
    private func device(_ index: Int, _ world: EnvelopeWorld, relay: InboxRelay, clock: ManualLoopClock, wall: ManualWallClock,
                        members: [Int]? = nil, sessions: Bool = false, paired: Bool = false, short: Bool = false) throws -> Device {
        let keys = try world.keys(index)
        let roster = try world.roster(index, members: members)
        let store = try KernelStore(path: world.path("store-\(index).sqlite"), namespaces: NamespaceSet([NotebookNamespace.self]),
                                    entropy: .seeded(UInt64(200 + index)))
        let replica = try Replica(device: keys.device, account: keys.userIDHash, siblings: roster.devices, store: store)
        let envelopeEvents = Recorder<EnvelopeEvent>()
        let replicaEvents = Recorder<ReplicaEvent>()
        let policy = sessions || paired ? SessionPolicy(entropy: .seeded(UInt64(400 + index)), shortHandshakes: short) : nil
        let replay = try ReplayGuard(path: world.replayPath(index))
        let gate = if let policy {
            EnvelopeGate(keys: keys, roster: roster, replay: replay, sessions: policy, entropy: .seeded(UInt64(500 + index)))
        } else {
            EnvelopeGate(keys: keys, roster: roster, replay: replay)
        }
        let transport = SealedTransport(sealer: EnvelopeSealer(keys: keys, roster: roster, entropy: .seeded(UInt64(100 + index)),
                                                               sessions: policy, replies: paired ? gate.opener : nil),
                                        carrier: relay, clock: wall, onEvent: { envelopeEvents.append($0) })
        let host = ReplicaHost(replica: replica, transport: transport, clock: clock, onEvent: { replicaEvents.append($0) })
        let receiver = SealedReceiver(gate: gate, host: host, transport: transport, clock: wall, onEvent: { envelopeEvents.append($0) })
        return Device(host: host, receiver: receiver, inbox: keys.inbox, replicaEvents: replicaEvents, envelopeEvents: envelopeEvents)
    }

    /// Delivers what the relay holds until it is empty; returns the deliveries.
    @discardableResult
    private func pump(_ devices: [Device], _ relay: InboxRelay) async -> Int {
        var deliveries = 0
        var moved = true
        while moved, deliveries < 500 {
            moved = false
            for device in devices {
                for envelope in await relay.take(device.inbox) {
                    await device.receiver.deliver(envelope)
                    deliveries += 1
                    moved = true
                }
            }
        }
        return deliveries
    }

    private static func note(_ index: Int) -> Note {
        let when = Date(timeIntervalSince1970: 1_700_000_000)
        return Note(id: [UInt8](repeating: UInt8(index), count: 16), title: "note \(index)", body: "sealed", createdAt: when, updatedAt: when)
    }

    func testTwoHostsConvergeThroughSealedEnvelopes() async throws {
        let world = try EnvelopeWorld(devices: 2)
        let relay = InboxRelay()
        let clock = ManualLoopClock()
        let wall = ManualWallClock()
        let a = try device(0, world, relay: relay, clock: clock, wall: wall)
        let b = try device(1, world, relay: relay, clock: clock, wall: wall)
        for index in 0..<3 {
            let note = Self.note(index)
            try await a.host.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
        }
        let other = Self.note(9)
        try await b.host.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(other) }
        clock.advance(to: 400)
        await a.host.tick()
        await b.host.tick()
        let deliveries = await pump([a, b], relay)
        let (digestA, digestB) = (await a.host.stateDigest, await b.host.stateDigest)
        XCTAssertEqual(digestA, digestB, "converged through envelopes only")
        XCTAssertGreaterThan(deliveries, 2)
        let (acceptedA, acceptedB) = (await a.receiver.acceptedCount, await b.receiver.acceptedCount)
        XCTAssertEqual(acceptedA + acceptedB, deliveries, "every envelope was accepted")
        XCTAssertEqual(a.envelopeEvents.items + b.envelopeEvents.items, [], "no drop, no seal failure")
        let shown = await relay.shown
        XCTAssertEqual(Set(shown.map(\.wake)), [.silent])
        XCTAssertEqual(Set(shown.map(\.subject)), [a.inbox, b.inbox])
    }

    func testHostsWithSessionsConvergeAndLaterFramesCostACounterAndATag() async throws {
        let world = try EnvelopeWorld(devices: 2)
        let relay = InboxRelay()
        let clock = ManualLoopClock()
        let wall = ManualWallClock()
        let a = try device(0, world, relay: relay, clock: clock, wall: wall, sessions: true)
        let b = try device(1, world, relay: relay, clock: clock, wall: wall, sessions: true)
        let first = Self.note(1)
        try await a.host.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(first) }
        clock.advance(to: 400)
        await a.host.tick()
        await b.host.tick()
        await pump([a, b], relay)
        let (digestA, digestB) = (await a.host.stateDigest, await b.host.stateDigest)
        XCTAssertEqual(digestA, digestB, "converged while the sessions were set up")
        XCTAssertEqual(a.envelopeEvents.items + b.envelopeEvents.items, [], "no drop, no refusal")
        let setUp = await relay.shown.count
        let second = Self.note(2)
        try await a.host.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(second) }
        clock.advance(to: 2_000)
        await a.host.tick()
        await b.host.tick()
        await pump([a, b], relay)
        let (againA, againB) = (await a.host.stateDigest, await b.host.stateDigest)
        XCTAssertEqual(againA, againB, "converged through sessions")
        let later = await relay.shown.dropFirst(setUp)
        XCTAssertFalse(later.isEmpty)
        XCTAssertEqual(Set(later.map { $0.bytes[0] }), [SessionFormat.version], "every frame of the second round went through a session")
        XCTAssertTrue(later.allSatisfy { $0.bytes.count <= SyncFrame.maxFrameBytes + SessionFormat.overheadBytes(counter: 200) })
        XCTAssertEqual(a.envelopeEvents.items + b.envelopeEvents.items, [])
        let refused = (a.replicaEvents.items + b.replicaEvents.items).filter { if case .frameRefused = $0 { true } else { false } }
        XCTAssertEqual(refused, [], "no handshake message reached a replica")
    }

    /// Two paired devices over one relay with notes 0..<`notesOnA` written on device 0 and note 9
    /// on device 1, the loop clock at 400 (their debounces due).
    private func pairedWithNotes(_ world: EnvelopeWorld, notesOnA: Int, short: Bool = false) async throws
        -> (a: Device, b: Device, relay: InboxRelay, clock: ManualLoopClock, wall: ManualWallClock) {
        let relay = InboxRelay()
        let clock = ManualLoopClock()
        let wall = ManualWallClock()
        let a = try device(0, world, relay: relay, clock: clock, wall: wall, paired: true, short: short)
        let b = try device(1, world, relay: relay, clock: clock, wall: wall, paired: true, short: short)
        for index in 0..<notesOnA {
            let note = Self.note(index)
            try await a.host.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
        }
        let other = Self.note(9)
        try await b.host.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(other) }
        clock.advance(to: 400)
        return (a, b, relay, clock, wall)
    }

    /// With the gate's opener given to the sealer, one handshake opens both directions: the first
    /// device's pair hello carries its first frame, the accept is the only other whole envelope,
    /// and every frame after it, either way, goes through a session.
    func testPairedHostsOpenBothDirectionsWithOneHandshakeThatCarriesTheFirstFrame() async throws {
        try await assertOneHandshakeOpensBothDirections(short: false)
    }

    /// With short handshakes (the default policy) the pair hello and its accept go in short
    /// handshake envelopes, 66 bytes beside their messages each instead of 372, and nothing goes
    /// whole: the two converge as with whole ones.
    func testShortHandshakesOpenBothDirectionsWithNothingWhole() async throws {
        try await assertOneHandshakeOpensBothDirections(short: true)
        XCTAssertEqual(HandshakeFormat.overheadBytes + SessionMessage.acceptBytes, 139)
    }

    /// Two paired hosts with notes on both sides converge after one handshake in the form
    /// `short` chooses (a pair hello carrying a's first frame and b's accept, nothing else in that
    /// form), b sending on the reply session, and no drop, refusal or handshake reaching a replica.
    private func assertOneHandshakeOpensBothDirections(short: Bool, file: StaticString = #filePath, line: UInt = #line) async throws {
        let (a, b, relay, _, _) = try await pairedWithNotes(try EnvelopeWorld(devices: 2), notesOnA: 3, short: short)
        let (version, overhead) = short ? (HandshakeFormat.version, HandshakeFormat.overheadBytes)
            : (EnvelopeFormat.version, SealedEnvelope.overheadBytes)
        await a.host.tick()
        let opening = await relay.shown
        XCTAssertEqual(opening.map { $0.bytes[0] }, [version], "the first frame travels inside the hello", file: file, line: line)
        XCTAssertGreaterThan(opening.first?.bytes.count ?? 0, overhead + SessionMessage.pairHelloBytes, "a frame rides along",
                             file: file, line: line)
        await pump([a, b], relay)
        await b.host.tick()
        await pump([a, b], relay)
        let (digestA, digestB) = (await a.host.stateDigest, await b.host.stateDigest)
        XCTAssertEqual(digestA, digestB, "converged", file: file, line: line)
        XCTAssertEqual(a.envelopeEvents.items + b.envelopeEvents.items, [], "no drop, no refusal", file: file, line: line)
        let shown = await relay.shown
        let handshakes = shown.filter { $0.bytes[0] == version }
        XCTAssertEqual(handshakes.map(\.subject), [b.inbox, a.inbox], "a pair hello to b and b's accept: nothing else in that form",
                       file: file, line: line)
        XCTAssertEqual(handshakes.last?.bytes.count, overhead + SessionMessage.acceptBytes, file: file, line: line)
        XCTAssertEqual(Set(shown.dropFirst(2).map { $0.bytes[0] }), [SessionFormat.version], file: file, line: line)
        XCTAssertTrue(shown.contains { $0.subject == a.inbox && $0.bytes[0] == SessionFormat.version }, "b sent on the reply session",
                      file: file, line: line)
        let refused = (a.replicaEvents.items + b.replicaEvents.items).filter { if case .frameRefused = $0 { true } else { false } }
        XCTAssertEqual(refused, [], "no handshake message reached a replica", file: file, line: line)
    }

    /// The accept of a pair hello is lost: the responder sends on the reply session the initiator
    /// never filed, so the initiator says hello again at its first such envelope, the responder
    /// ends that session on the new hello, and the two converge with no handshake timeout.
    func testALostAcceptIsFollowedByAHelloAtOnceAndTheDevicesStillConverge() async throws {
        let (a, b, relay, clock, wall) = try await pairedWithNotes(try EnvelopeWorld(devices: 2), notesOnA: 1)
        await a.host.tick()
        for envelope in await relay.take(b.inbox) { await b.receiver.deliver(envelope) }
        let fromB = await relay.take(a.inbox)
        XCTAssertEqual(fromB.first?[0], EnvelopeFormat.version, "the accept comes first")
        XCTAssertGreaterThan(fromB.count, 1, "and b answers on the reply session")
        for envelope in fromB.dropFirst() { await a.receiver.deliver(envelope) }
        let dropped = await a.receiver.dropCounts
        XCTAssertEqual(dropped[.unknownSession], fromB.count - 1, "the accept lost, the reply session is unknown")
        await pump([a, b], relay)
        // The replicas' retries resend what was dropped; the wall clock, which times handshakes,
        // stays where it was.
        for step in 1...10 {
            clock.advance(to: 400 + Int64(step) * 1_000)
            await a.host.tick()
            await b.host.tick()
            await pump([a, b], relay)
        }
        let (digestA, digestB) = (await a.host.stateDigest, await b.host.stateDigest)
        XCTAssertEqual(digestA, digestB, "converged without waiting for a handshake timeout")
        XCTAssertEqual(wall.millisecondsSince1970, EnvelopeWorld.now)
        let rows = await a.host.withStore { store in (try? store.rows(NotebookNamespace.self))?.count }
        XCTAssertEqual(rows, 2, "b's note reached a")
    }

    /// A `reconcile_resp` carrying one note from device 0: a frame that writes a row wherever a
    /// replica of the account accepts it.
    private func writingFrame(_ world: EnvelopeWorld) throws -> [UInt8] {
        let store = try KernelStore(path: world.path("source.sqlite"), namespaces: NamespaceSet([NotebookNamespace.self]),
                                    entropy: .seeded(300))
        defer { store.close() }
        try store.configureDevice(world.id(0))
        try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(Self.note(5)) }
        let response = try XCTUnwrap(try store.respond(toKeys: [Self.note(5).id], namespace: NotebookNamespace.name, isFinal: true).first)
        return SyncFrame(account: world.account.userIDHash, schema: store.namespaces.schema, body: .reconcileResponse(response)).encoded()
    }

    /// Seals an inside built by hand.
    private func forge(_ world: EnvelopeWorld, _ frame: [UInt8], certificate: SenderCertificate, signer: DeviceKeys, macKey: [UInt8],
                       to recipient: Int, timestamp: Int64? = nil) throws -> [UInt8] {
        let inside = try XCTUnwrap(EnvelopeFormat.inside(certificate: certificate, recipient: world.id(recipient),
                                                         frameID: world.entropy.bytes(16), timestamp: timestamp ?? now, frame: frame,
                                                         signingKey: signer.signing.secretKey, macKey: macKey))
        return [1, 0] + (try XCTUnwrap(Sodium.seal(inside, to: world.devices[recipient].envelopePublicKey,
                                                   ephemeralSeed: world.entropy.bytes(32))))
    }

    func testEveryDroppedEnvelopeLeavesTheStoreUntouchedAndNeverReachesTheReplica() async throws {
        let world = try EnvelopeWorld(devices: 3)
        let expired = try world.addDevice(expiresAt: now / 1_000 - 1)
        let outsider = try world.addDevice()
        let frame = try writingFrame(world)
        let mac = try world.keys(0).channel.mac
        let other = try EnvelopeWorld(devices: 1, seed: 77)
        let fakeIssuer = try XCTUnwrap(Sodium.signingKeyPair(seed: world.entropy.bytes(32)))
        let intruder = try DeviceKeys.generate(entropy: world.entropy)
        let body = SenderCertificate.body(device: intruder.device, envelopeKey: intruder.envelopePublicKey,
                                          userIDHash: world.account.userIDHash, expiresAt: EnvelopeWorld.expiry)
        let forgedCertificate = SenderCertificate(device: intruder.device, envelopeKey: intruder.envelopePublicKey,
                                                  userIDHash: world.account.userIDHash, expiresAt: EnvelopeWorld.expiry,
                                                  signature: try XCTUnwrap(Sodium.sign(SenderCertificate.signedMessage(body: body),
                                                                                       secretKey: fakeIssuer.secretKey)))
        let wrongSeed = EnvelopeSealer(keys: try EnvelopeKeys(accountSeed: world.entropy.bytes(32), issuerPublicKey: world.account.issuerPublicKey,
                                                              device: world.devices[0], certificate: world.certificates[0]),
                                       roster: try world.roster(0), entropy: world.entropy)
        let toTwo = try world.sealer(0).seal(frame, to: world.id(2), now: now)
        let openedByTwo = try XCTUnwrap(Sodium.open(toTwo.bytes[2...], publicKey: world.devices[2].envelopePublicKey,
                                                    secretKey: world.devices[2].envelopeSecretKey))
        let resealed = [1, 0] + (try XCTUnwrap(Sodium.seal(openedByTwo, to: world.devices[1].envelopePublicKey,
                                                           ephemeralSeed: world.entropy.bytes(32))))
        let valid = try world.sealer(0).seal(frame, to: world.id(1), now: now).bytes
        var unknownFormat = valid
        unknownFormat[0] = 9
        let hostile: [(EnvelopeDropReason, [UInt8])] = [
            (.unopenable, toTwo.bytes),
            (.foreignAccount, try forgeFromOtherAccount(world, other, frame)),
            (.badCertificate, try forge(world, frame, certificate: forgedCertificate, signer: intruder, macKey: mac, to: 1)),
            (.expiredCertificate, try forge(world, frame, certificate: world.certificates[expired], signer: world.devices[expired],
                                            macKey: mac, to: 1)),
            (.badMAC, try wrongSeed.seal(frame, to: world.id(1), now: now).bytes),
            (.notASibling, try world.sealer(outsider).seal(frame, to: world.id(1), now: now).bytes),
            (.badSignature, try forge(world, frame, certificate: world.certificates[0], signer: world.devices[2], macKey: mac, to: 1)),
            (.misaddressed, resealed),
            (.outsideWindow, try forge(world, frame, certificate: world.certificates[0], signer: world.devices[0], macKey: mac, to: 1,
                                       timestamp: now - ReplayWindow().pastMillis - 1)),
            (.truncated, Array(valid.prefix(100))),
            (.unopenable, Array(valid.dropLast(1))),
            (.oversized, valid + [UInt8](repeating: 0, count: SealedEnvelope.maxBytes + 1 - valid.count)),
            (.unknownFormat, unknownFormat),
        ]
        let relay = InboxRelay()
        let clock = ManualLoopClock()
        let b = try device(1, world, relay: relay, clock: clock, wall: ManualWallClock(), members: [0, 1, 2, expired])
        let before = await b.host.stateDigest
        for (reason, envelope) in hostile {
            let verdict = await b.receiver.deliver(envelope)
            XCTAssertEqual(verdict, .dropped(reason))
            let digest = await b.host.stateDigest
            XCTAssertEqual(digest, before, "\(reason): nothing written")
            XCTAssertEqual(b.replicaEvents.items, [], "\(reason): the replica never saw the frame")
        }
        let shown = await relay.shown
        XCTAssertEqual(shown, [], "the replica answered nothing")
        let counts = await b.receiver.dropCounts
        XCTAssertEqual(counts.values.reduce(0, +), hostile.count)
        XCTAssertEqual(counts[.unopenable], 2)
        XCTAssertEqual(b.envelopeEvents.items.count, hostile.count, "each drop reported once")
        let verdict = await b.receiver.deliver(valid)
        guard case .accepted = verdict else { return XCTFail("the same frame, properly sealed, is accepted") }
        let after = await b.host.stateDigest
        XCTAssertNotEqual(after, before, "the frame the hostile envelopes carried writes a row once accepted")
    }

    /// An envelope from device 0 of `other` (another account) to device 1 of `world`.
    private func forgeFromOtherAccount(_ world: EnvelopeWorld, _ other: EnvelopeWorld, _ frame: [UInt8]) throws -> [UInt8] {
        let inside = try XCTUnwrap(EnvelopeFormat.inside(certificate: other.certificates[0], recipient: world.id(1),
                                                         frameID: other.entropy.bytes(16), timestamp: now, frame: frame,
                                                         signingKey: other.devices[0].signing.secretKey,
                                                         macKey: try other.keys(0).channel.mac))
        return [1, 0] + (try XCTUnwrap(Sodium.seal(inside, to: world.devices[1].envelopePublicKey, ephemeralSeed: other.entropy.bytes(32))))
    }
}

extension EnvelopePipelineTests {
    func testRejectAReplayAfterTheReceivingProcessRestarts() async throws {
        let world = try EnvelopeWorld(devices: 2)
        let relay = InboxRelay()
        let clock = ManualLoopClock()
        let heartbeat = SyncFrame(account: world.account.userIDHash,
                                  schema: try NamespaceSet([NotebookNamespace.self]).schema, body: .heartbeat).encoded()
        let envelope = try world.sealer(0).seal(heartbeat, to: world.id(1), now: now).bytes
        var b: Device? = try device(1, world, relay: relay, clock: clock, wall: ManualWallClock())
        let first = await b?.receiver.deliver(envelope)
        guard case .accepted = first else { return XCTFail("the first delivery is accepted") }
        let answered = await relay.shown.count
        XCTAssertEqual(answered, 1, "the replica answered the heartbeat with its digest")
        b = nil
        let restarted = try device(1, world, relay: relay, clock: clock, wall: ManualWallClock(now + 5_000))
        let again = await restarted.receiver.deliver(envelope)
        XCTAssertEqual(again, .dropped(.replayed))
        let shown = await relay.shown.count
        XCTAssertEqual(shown, answered, "the replayed heartbeat never reached the restarted replica")
        XCTAssertEqual(restarted.replicaEvents.items, [])
    }

    func testAWrongSchemaDigestInsideAValidEnvelopeReachesTheReplicaAsASchemaReport() async throws {
        let world = try EnvelopeWorld(devices: 2)
        let relay = InboxRelay()
        let b = try device(1, world, relay: relay, clock: ManualLoopClock(), wall: ManualWallClock())
        let before = await b.host.stateDigest
        let remote = SchemaFingerprint(value: 0xdead_beef)
        let digest = SyncFrame(account: world.account.userIDHash, schema: remote,
                               body: .stateDigest(digest: [1, 2, 3], probe: true)).encoded()
        let verdict = await b.receiver.deliver(try world.sealer(0).seal(digest, to: world.id(1), now: now).bytes)
        guard case .accepted = verdict else { return XCTFail("a valid envelope passes the gate whatever its frame holds") }
        let local = try NamespaceSet([NotebookNamespace.self]).schema
        XCTAssertEqual(b.replicaEvents.items, try [.peerSchemaMismatch(peer: world.id(0), local: local, remote: remote)])
        let after = await b.host.stateDigest
        XCTAssertEqual(after, before, "nothing written")
        let shown = await relay.shown
        XCTAssertEqual(shown, [], "nothing answered")
    }

    func testRejectAFrameNamingAnotherAccountInsideAValidEnvelope() async throws {
        let world = try EnvelopeWorld(devices: 2)
        let b = try device(1, world, relay: InboxRelay(), clock: ManualLoopClock(), wall: ManualWallClock())
        let before = await b.host.stateDigest
        let claimed = SyncFrame(account: [UInt8](repeating: 3, count: 32), schema: try NamespaceSet([NotebookNamespace.self]).schema,
                                body: .heartbeat).encoded()
        let verdict = await b.receiver.deliver(try world.sealer(0).seal(claimed, to: world.id(1), now: now).bytes)
        guard case .accepted = verdict else { return XCTFail("the certificate is this account's: the gate passes it") }
        XCTAssertEqual(b.replicaEvents.items, try [.frameRefused(from: world.id(0), error: SyncKernelError(.foreignAccount))],
                       "the frame's own account must be the one its certificate proved")
        let after = await b.host.stateDigest
        XCTAssertEqual(after, before)
    }

    func testRejectSendingWithoutKeyMaterialAsASealFailure() async throws {
        let world = try EnvelopeWorld(devices: 2)
        let relay = InboxRelay()
        let events = Recorder<EnvelopeEvent>()
        let transport = SealedTransport(sealer: EnvelopeSealer(keys: nil, roster: try world.roster(0)), carrier: relay,
                                        clock: ManualWallClock(), onEvent: { events.append($0) })
        await transport.send([1, 2, 3], kind: "heartbeat", to: try world.id(1))
        XCTAssertEqual(events.items, try [.sealFailed(recipient: world.id(1), error: SyncKernelError(.keyMaterialMissing, "this device holds no account keys"))])
        let shown = await relay.shown
        XCTAssertEqual(shown, [], "nothing reaches the relay")
    }
}
