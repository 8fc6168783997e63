import SQLiteStore
@testable import SyncEnvelope
@testable import SyncJoin
import SyncKernel
import XCTest

/// The sibling's guard ladder, rung by rung: each failing rung drops the request silently with
/// its own reason, counts it once, reports it once and records no request id.
final class SignInLadderTests: XCTestCase {
    private let now = JoinWorld.now

    /// A request of the world's account: the certificate of its sign-in key unless one is given.
    private func request(_ world: JoinWorld, certificate: SignInCertificate? = nil, timestamp: Int64? = nil, id: UInt8 = 1,
                         name: String = "phone") throws -> SignInRequest {
        let stamp = timestamp ?? now
        let keys = try DeviceKeys(signingSeed: [UInt8](repeating: 7, count: 32), envelopeSecretKey: [UInt8](repeating: 8, count: 32))
        return try SignInRequest(requestID: [UInt8](repeating: id, count: 16), replyToken: [UInt8](repeating: 3, count: 16),
                                 ephemeralKey: [UInt8](repeating: 4, count: 32), device: keys.device,
                                 envelopeKey: keys.envelopePublicKey, timestamp: stamp, deadline: stamp + 180_000, deviceName: name,
                                 certificate: certificate ?? world.credential().certificate)
    }

    private func sealed(_ request: SignInRequest, to key: [UInt8]) throws -> [UInt8] {
        try XCTUnwrap(request.sealed(to: key, ephemeralSeed: [UInt8](repeating: 9, count: 32)))
    }

    private func sealed(_ world: JoinWorld, _ request: SignInRequest) throws -> [UInt8] {
        try sealed(request, to: world.discovery().publicKey)
    }

    /// The world's gate, pinning `verifier` and holding `own` (both the sign-in key's unless given).
    private func gate(_ world: JoinWorld, verifier: [UInt8]?? = .none, own: SignInCertificate?? = .none) throws -> SignInGate {
        let key = try world.sibling.signInKey()
        let pinned = verifier ?? key.verifierPublicKey
        let ownCertificate = try own ?? key.issue(expiresAt: JoinWorld.expiry)
        return try SignInGate(accountSeed: world.sibling.account().seed, verifier: pinned, ownCertificate: ownCertificate,
                              replay: ReplayGuard(path: world.seenPath, window: SignInGate.replayWindow))
    }

    private func assertDropped(_ gate: SignInGate, _ message: [UInt8], _ reason: SignInDropReason, at time: Int64? = nil,
                               file: StaticString = #filePath, line: UInt = #line) {
        let seen = gate.seenCount
        let before = gate.dropCounts[reason, default: 0]
        XCTAssertEqual(gate.open(message, now: time ?? now), .dropped(reason), file: file, line: line)
        XCTAssertEqual(gate.dropCounts[reason, default: 0], before + 1, "counted once", file: file, line: line)
        let drops = gate.drainDrops()
        XCTAssertEqual(drops.map(\.reason), [reason], "reported once", file: file, line: line)
        XCTAssertEqual(drops.map(\.bytes), [message.count], file: file, line: line)
        XCTAssertEqual(gate.seenCount, seen, "no request id recorded", file: file, line: line)
    }

    func testARequestThatPassesEveryRungIsAcceptedAndItsIdRecorded() throws {
        let world = try JoinWorld()
        let gate = try gate(world)
        let request = try request(world)
        XCTAssertEqual(gate.open(try sealed(world, request), now: now), .accepted(request))
        XCTAssertEqual(gate.acceptedCount, 1)
        XCTAssertEqual(gate.seenCount, 1)
        XCTAssertEqual(gate.dropCounts, [:])
        XCTAssertEqual(gate.discoverySubject, try world.sibling.discoverySubject())
        for edge in [now - SignInGate.windowMillis, now + SignInGate.windowMillis] {
            let atEdge = try self.request(world, timestamp: edge, id: edge > now ? 2 : 3)
            XCTAssertEqual(gate.open(try sealed(world, atEdge), now: now), .accepted(atEdge), "exactly 120 s away passes")
        }
    }

    func testRejectBadEncodingsBeforeAndAfterOpening() throws {
        let world = try JoinWorld()
        let gate = try gate(world)
        let good = try sealed(world, request(world))
        assertDropped(gate, [], .undecodable)
        XCTAssertEqual(good.count, SignInRequest.sealedBytes)
        assertDropped(gate, Array(good.dropLast()), .undecodable)
        assertDropped(gate, good + [0], .undecodable)
        assertDropped(gate, [2] + good.dropFirst(), .undecodable)
        var flipped = good
        flipped[60] ^= 1
        assertDropped(gate, flipped, .unopenable)
        let otherAccount = try DiscoveryKeys(accountSeed: [UInt8](repeating: 42, count: 32))
        assertDropped(gate, try sealed(request(world), to: otherAccount.publicKey), .unopenable)
        var inside = try request(world).encoded()
        inside[145] = 65
        let discoveryKey = try world.discovery().publicKey
        let badName = try XCTUnwrap(Sodium.seal(inside, to: discoveryKey, ephemeralSeed: [UInt8](repeating: 1, count: 32)))
        assertDropped(gate, [1] + badName, .undecodable)
        var stamped = try request(world).encoded()
        stamped.replaceSubrange(137..<145, with: stamped[129..<137])
        let noWait = try XCTUnwrap(Sodium.seal(stamped, to: discoveryKey, ephemeralSeed: [UInt8](repeating: 1, count: 32)))
        assertDropped(gate, [1] + noWait, .undecodable)
        XCTAssertEqual(gate.acceptedCount, 0)
    }

    func testRejectAForgedOrAlteredCertificate() throws {
        let world = try JoinWorld()
        let gate = try gate(world)
        let identity = try world.sibling.signInKey().identity
        let forger = try SignInKey(verifierSeed: [UInt8](repeating: 66, count: 32), identity: identity)
        let forged = try forger.issue(expiresAt: JoinWorld.expiry)
        assertDropped(gate, try sealed(world, request(world, certificate: forged)), .badCertificate)
        let genuine = try world.credential().certificate
        let altered = SignInCertificate(identity: genuine.identity, expiresAt: genuine.expiresAt + 86_400, signature: genuine.signature)
        assertDropped(gate, try sealed(world, request(world, certificate: altered)), .badCertificate)
    }

    func testRejectACertificateOfAnotherVerifierOrWithNoVerifierPinned() throws {
        let world = try JoinWorld()
        let other = try SignInKey(verifierSeed: [UInt8](repeating: 77, count: 32), identity: world.sibling.signInKey().identity)
        let pinnedElsewhere = try gate(world, verifier: .some(other.verifierPublicKey),
                                       own: .some(other.issue(expiresAt: JoinWorld.expiry)))
        assertDropped(pinnedElsewhere, try sealed(world, request(world)), .badCertificate)
        let unpinned = try gate(world, verifier: .some(nil))
        assertDropped(unpinned, try sealed(world, request(world, id: 2)), .noPinnedVerifier)
    }

    func testRejectAnExpiredCertificate() throws {
        let world = try JoinWorld()
        let gate = try gate(world)
        let expired = try world.sibling.signInKey().issue(expiresAt: now / 1_000)
        assertDropped(gate, try sealed(world, request(world, certificate: expired)), .expiredCertificate)
        let lastSecond = try world.sibling.signInKey().issue(expiresAt: now / 1_000 + 1)
        guard case .accepted = gate.open(try sealed(world, request(world, certificate: lastSecond)), now: now) else {
            return XCTFail("a certificate in its last second passes")
        }
    }

    func testRejectWhenThisDeviceHasNoOwnCertificate() throws {
        let world = try JoinWorld()
        assertDropped(try gate(world, own: .some(nil)), try sealed(world, request(world)), .noOwnCertificate)
        let stranger = try SignInKey(verifierSeed: [UInt8](repeating: 88, count: 32), identity: world.sibling.signInKey().identity)
        let unverifiable = try gate(world, own: .some(stranger.issue(expiresAt: JoinWorld.expiry)))
        assertDropped(unverifiable, try sealed(world, request(world, id: 2)), .noOwnCertificate)
    }

    func testRejectACertificateOfAnotherIdentity() throws {
        let world = try JoinWorld()
        let gate = try gate(world)
        let otherIdentity = try world.sibling.signInKey().issue(identity: [UInt8](repeating: 5, count: 32), expiresAt: JoinWorld.expiry)
        assertDropped(gate, try sealed(world, request(world, certificate: otherIdentity)), .otherIdentity)
    }

    func testRejectStaleAndFutureTimestamps() throws {
        let world = try JoinWorld()
        let gate = try gate(world)
        assertDropped(gate, try sealed(world, request(world, timestamp: now - SignInGate.windowMillis - 1)), .staleTimestamp)
        assertDropped(gate, try sealed(world, request(world, timestamp: now + SignInGate.windowMillis + 1)), .futureTimestamp)
        assertDropped(gate, try sealed(world, request(world)), .staleTimestamp, at: now + SignInGate.windowMillis + 1)
        assertDropped(gate, try sealed(world, request(world)), .futureTimestamp, at: now - SignInGate.windowMillis - 1)
    }

    func testRejectAReplayAlsoAfterARestartAndAResealedRequestOfTheSameId() throws {
        let world = try JoinWorld()
        let message = try sealed(world, request(world))
        do {
            let gate = try gate(world)
            guard case .accepted = gate.open(message, now: now) else { return XCTFail("first delivery passes") }
            assertDropped(gate, message, .replayed, at: now + 1_000)
            let resent = try XCTUnwrap(request(world, timestamp: now + 5_000).sealed(to: world.discovery().publicKey,
                                                                                      ephemeralSeed: [UInt8](repeating: 2, count: 32)))
            assertDropped(gate, resent, .replayed, at: now + 5_000)
        }
        let restarted = try gate(world)
        XCTAssertEqual(restarted.seenCount, 1, "the seen set is on disk")
        assertDropped(restarted, message, .replayed, at: now + 2_000)
        guard case .accepted = restarted.open(try sealed(world, request(world, id: 9)), now: now + 2_000) else {
            return XCTFail("another request id passes")
        }
    }

    func testRejectWhenTheSeenSetCannotRecord() throws {
        let world = try JoinWorld()
        let gate = try gate(world)
        let saboteur = try SQLiteConnection<SyncKernelError>(path: world.seenPath)
        try saboteur.execute("DROP TABLE seen")
        saboteur.close()
        assertDropped(gate, try sealed(world, request(world)), .replayStoreUnavailable)
    }

    func testTheLadderTakesTheFirstFailingRung() throws {
        let world = try JoinWorld()
        let gate = try gate(world, own: .some(nil))
        let expiredAndStale = try world.sibling.signInKey().issue(expiresAt: now / 1_000)
        assertDropped(gate, try sealed(world, request(world, certificate: expiredAndStale, timestamp: now - 600_000)),
                      .expiredCertificate)
        assertDropped(gate, try sealed(world, request(world, timestamp: now - 600_000)), .noOwnCertificate)
    }

    func testSeededMutantsOfAnInsideGetOneVerdictAndRecordAnIdOnlyWhenAccepted() throws {
        let world = try JoinWorld()
        let gate = try gate(world)
        let discoveryKey = try world.discovery().publicKey
        let good = try request(world).encoded()
        let seed: UInt64 = 2_024
        let entropy = EntropySource.seeded(seed)
        var reasons: [SignInDropReason: Int] = [:]
        var accepted = 0
        for index in 0..<1_000 {
            var inside = good
            let draws = entropy.bytes(6)
            for flip in 0..<(1 + Int(draws[0] % 3)) {
                let position = (Int(draws[1 + flip]) << 8 | Int(draws[4])) % inside.count
                inside[position] ^= draws[5] | 1
            }
            let sealed = try XCTUnwrap(Sodium.seal(inside, to: discoveryKey, ephemeralSeed: entropy.bytes(32)))
            let seen = gate.seenCount
            let drops = gate.dropCounts.values.reduce(0, +)
            switch gate.open([1] + sealed, now: now) {
            case .accepted(let opened):
                accepted += 1
                XCTAssertEqual(gate.seenCount, seen + 1, "seed \(seed), mutant \(index)")
                XCTAssertEqual(opened.encoded(), inside, "an accepted request is exactly its inside (seed \(seed), mutant \(index))")
            case .dropped(let reason):
                reasons[reason, default: 0] += 1
                XCTAssertEqual(gate.seenCount, seen, "seed \(seed), mutant \(index)")
                XCTAssertNotEqual(reason, .unopenable, "a sealed mutant always opens (seed \(seed), mutant \(index))")
            case .notice:
                XCTFail("the gate never reads a notice (seed \(seed), mutant \(index))")
            }
            XCTAssertEqual(gate.dropCounts.values.reduce(0, +) + gate.acceptedCount, drops + seen + 1,
                           "one verdict per message (seed \(seed), mutant \(index))")
            _ = gate.drainDrops()
        }
        print("SignInGate mutants (seed \(seed)): \(accepted) accepted, " + reasons.sorted { $0.key.rawValue < $1.key.rawValue }
            .map { "\($0.value) \($0.key.name)" }.joined(separator: ", "))
        for reason in [SignInDropReason.undecodable, .badCertificate, .replayed] {
            XCTAssertNotNil(reasons[reason], "mutants reach \(reason) behind the box (seed \(seed)): \(reasons)")
        }
        XCTAssertGreaterThan(accepted, 0, "mutants of the ids and keys still pass (seed \(seed))")
    }

    func testEveryDropReasonIsStableAndFoundByItsCodeString() {
        XCTAssertEqual(SignInDropReason.all.map(\.rawValue), (101...117).map { "SJ\($0)" })
        XCTAssertEqual(SignInDropReason.all.map(\.name), [
            "undecodable", "unopenable", "noPinnedVerifier", "badCertificate", "expiredCertificate", "noOwnCertificate",
            "otherIdentity", "staleTimestamp", "futureTimestamp", "replayed", "replayStoreUnavailable", "approvalsFull",
            "credentialSpent", "credentialRevoked", "credentialBusy", "badNotice", "ledgerUnavailable",
        ])
        XCTAssertEqual(JoinReplyDropReason.all.map(\.rawValue), (201...206).map { "SJ\($0)" })
        XCTAssertEqual(JoinReplyDropReason.all.map(\.name),
                       ["afterOutcome", "undecodable", "unopenable", "malformed", "otherRequest", "invalidGrant"])
        for reason in SignInDropReason.all { XCTAssertEqual(SignInDropReason(rawValue: reason.rawValue)?.name, reason.name) }
        for reason in JoinReplyDropReason.all { XCTAssertEqual(JoinReplyDropReason(rawValue: reason.rawValue)?.name, reason.name) }
        XCTAssertNil(SignInDropReason(rawValue: "SJ201"))
        XCTAssertNil(JoinReplyDropReason(rawValue: "SJ101"))
        XCTAssertEqual(SignInDropReason.replayed.description, "SJ110 replayed")
    }
}
