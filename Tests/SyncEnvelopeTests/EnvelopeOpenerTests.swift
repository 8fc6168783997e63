import Foundation
import Synchronization
@testable import SyncEnvelope
import SyncKernel
import SyncKernelSimulator
import XCTest

/// The gate in two stages: the stateless `EnvelopeOpener` (where the bytes arrive, on any thread)
/// and `EnvelopeGate.admit` (the seen set, on the gate's owner) decide exactly what `open` does,
/// and a device learned by `admit` is in the opener's roster from then on.
final class EnvelopeOpenerTests: XCTestCase {
    private let now = EnvelopeWorld.now

    private func heartbeat(_ world: EnvelopeWorld) -> [UInt8] {
        SyncFrame(account: world.account.userIDHash, schema: SchemaFingerprint(value: 1), body: .heartbeat).encoded()
    }

    func testCheckThenAdmitDecidesWhatOpenDecides() throws {
        let world = try EnvelopeWorld()
        let whole = EnvelopeGate(keys: try world.keys(1), roster: try world.roster(1), replay: try ReplayGuard(path: ":memory:"))
        let staged = EnvelopeGate(keys: try world.keys(1), roster: try world.roster(1), replay: try ReplayGuard(path: ":memory:"))
        let good = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now).bytes
        var damaged = good
        damaged[damaged.count - 1] ^= 1
        let misaddressed = try world.sealer(0).seal(heartbeat(world), to: world.id(2), now: now).bytes
        let late = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now - 3_600_000).bytes
        let envelopes: [[UInt8]] = [[], [9] + good.dropFirst(), damaged, misaddressed, good, good, late]
        for envelope in envelopes {
            let expected = whole.open(envelope, now: now)
            let got: EnvelopeVerdict = switch staged.opener.check(envelope, now: now) {
            case .passed(let checked): staged.admit(checked, now: now)
            case .dropped(let reason): .dropped(reason)
            }
            XCTAssertEqual(got, expected)
        }
        XCTAssertEqual(whole.acceptedCount, 1)
        XCTAssertEqual(staged.acceptedCount, 1)
        XCTAssertEqual(staged.dropCounts, [.outsideWindow: 1],
                       "the gate counts only what reached it: the opener refused the byte-for-byte replay itself")
    }

    func testAByteForByteReplayIsRefusedBeforeItIsOpenedForTheReasonTheWholeCheckGives() throws {
        let world = try EnvelopeWorld()
        var window = ReplayWindow()
        window.maxEntries = 6
        let gate = EnvelopeGate(keys: try world.keys(1), roster: try world.roster(1),
                                replay: try ReplayGuard(path: ":memory:", window: window))
        let reference = EnvelopeGate(keys: try world.keys(1), roster: try world.roster(1),
                                     replay: try ReplayGuard(path: ":memory:", window: window))
        let plain = EnvelopeOpener(keys: try world.keys(1), roster: try world.roster(1))
        var random = SeededGenerator(seed: 29)
        var sent: [[UInt8]] = []
        var clock = now
        var refusedUnopened = 0
        for step in 0..<400 {
            clock += Int64.random(in: 0...40_000, using: &random)
            let envelope: [UInt8]
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4 where !sent.isEmpty:
                envelope = sent[Int.random(in: 0..<sent.count, using: &random)]
            case 4 where !sent.isEmpty:
                var copy = sent[Int.random(in: 0..<sent.count, using: &random)]
                copy[Int.random(in: 2..<copy.count, using: &random)] ^= 1
                envelope = copy
            default:
                let stamp = clock + Int64.random(in: -400_000...100_000, using: &random)
                envelope = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: stamp).bytes
                sent.append(envelope)
            }
            let full = plain.check(envelope, now: clock)
            if case .passed = full, case .dropped = gate.opener.check(envelope, now: clock) { refusedUnopened += 1 }
            let expected: EnvelopeVerdict = switch full {
            case .passed(let checked): reference.admit(checked, now: clock)
            case .dropped(let reason): .dropped(reason)
            }
            XCTAssertEqual(gate.open(envelope, now: clock), expected, "step \(step)")
            XCTAssertLessThanOrEqual(gate.opener.recentCount, gate.seenCount, "never more than the seen set holds (step \(step))")
        }
        XCTAssertGreaterThan(reference.dropCounts[.replayed] ?? 0, 0)
        XCTAssertGreaterThan(reference.dropCounts[.outsideWindow] ?? 0, 0)
        XCTAssertGreaterThan(refusedUnopened, 0, "replays were refused by the opener without opening them")
        XCTAssertLessThanOrEqual(refusedUnopened, (reference.dropCounts[.replayed] ?? 0) + (reference.dropCounts[.outsideWindow] ?? 0),
                                 "and only what the seen set refuses")
    }

    func testARememberedEnvelopeAgesAsTheWholeCheckWouldJudgeIt() throws {
        let world = try EnvelopeWorld()
        let shortLived = try world.addDevice(expiresAt: now / 1_000 + 60)
        let gate = try world.gate(1)
        let plain = EnvelopeOpener(keys: try world.keys(1), roster: try world.roster(1))
        let expiring = try world.sealer(shortLived).seal(heartbeat(world), to: world.id(1), now: now).bytes
        let lasting = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now).bytes
        for envelope in [expiring, lasting] {
            guard case .accepted = gate.open(envelope, now: now) else { return XCTFail("a fresh envelope is accepted") }
            XCTAssertEqual(gate.opener.check(envelope, now: now + 1), .dropped(.replayed), "the opener alone refuses its replay")
            guard case .passed = plain.check(envelope, now: now + 1) else { return XCTFail("an opener without a gate remembers nothing") }
        }
        XCTAssertEqual(gate.opener.check(expiring, now: now + 60_000), .dropped(.expiredCertificate))
        XCTAssertEqual(plain.check(expiring, now: now + 60_000), .dropped(.expiredCertificate), "as the whole check says")
        let late = now + ReplayWindow().pastMillis + 1
        XCTAssertEqual(gate.opener.check(lasting, now: late), .dropped(.outsideWindow))
        XCTAssertEqual(gate.open(lasting, now: late), .dropped(.outsideWindow))
        var damaged = lasting
        damaged[damaged.count - 1] ^= 1
        XCTAssertEqual(gate.opener.check(damaged, now: now + 1), .dropped(.unopenable), "one byte off is another envelope")
    }

    func testAnEnvelopeThatWaitedInAQueueIsJudgedWhereItArrived() throws {
        let world = try EnvelopeWorld()
        let late = now + ReplayWindow().pastMillis + 60_000
        for (index, admittedAt) in [(1, nil), (2, late)] as [(Int, Int64?)] {
            let gate = try world.gate(index)
            let envelope = try world.sealer(0).seal(heartbeat(world), to: world.id(index), now: now).bytes
            guard case .passed(let checked) = gate.opener.check(envelope, now: now + 1_000) else {
                return XCTFail("a sibling's envelope passes")
            }
            XCTAssertEqual(checked.checkedAt, now + 1_000)
            let verdict = gate.admit(checked, now: admittedAt ?? checked.checkedAt)
            if admittedAt == nil {
                guard case .accepted = verdict else { return XCTFail("judged at its arrival, a wait in a queue does not make it late") }
            } else {
                XCTAssertEqual(verdict, .dropped(.outsideWindow), "judged when it is admitted, it is late")
            }
        }
    }

    func testAnEnvelopeCheckedTwiceIsAdmittedOnce() throws {
        let world = try EnvelopeWorld()
        let gate = try world.gate(1)
        let envelope = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now).bytes
        guard case .passed(let first) = gate.opener.check(envelope, now: now),
              case .passed(let second) = gate.opener.check(envelope, now: now) else { return XCTFail("a sibling's envelope passes") }
        XCTAssertEqual(first, second, "the stateless stage remembers nothing")
        guard case .accepted = gate.admit(first, now: now) else { return XCTFail("a fresh envelope is admitted") }
        XCTAssertEqual(gate.admit(second, now: now), .dropped(.replayed))
    }

    func testADeviceIsLearnedOnceEvenWhenTwoOfItsEnvelopesWereCheckedBeforeEither() throws {
        let world = try EnvelopeWorld()
        let gate = EnvelopeGate(keys: try world.keys(1), roster: try world.roster(1, members: [1, 2]),
                                replay: try ReplayGuard(path: world.replayPath(1)), learnsSiblings: true)
        let newcomer = try world.id(0)
        let envelopes = try (0..<2).map { try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now + Int64($0)).bytes }
        let checked = envelopes.compactMap { envelope -> CheckedEnvelope? in
            guard case .passed(let checked) = gate.opener.check(envelope, now: now) else { return nil }
            return checked
        }
        XCTAssertEqual(checked.count, 2)
        XCTAssertFalse(gate.opener.roster.contains(newcomer), "checking learns nothing")
        for envelope in checked {
            guard case .accepted = gate.admit(envelope, now: now) else { return XCTFail("both are fresh") }
        }
        XCTAssertEqual(gate.drainLearned(), [world.certificates[0]], "learned once")
        XCTAssertTrue(gate.opener.roster.contains(newcomer))
    }

    func testANonLearningOpenerNeverGrowsItsRoster() throws {
        let world = try EnvelopeWorld()
        let opener = EnvelopeOpener(keys: try world.keys(1), roster: try world.roster(1, members: [1, 2]))
        XCTAssertFalse(opener.learn(world.certificates[0]))
        XCTAssertFalse(opener.roster.contains(try world.id(0)))
        let envelope = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now).bytes
        XCTAssertEqual(opener.check(envelope, now: now), .dropped(.notASibling))
    }

    func testOpenersOnManyThreadsAgreeWithOneThread() throws {
        let world = try EnvelopeWorld()
        let opener = try world.gate(1).opener
        let good = try world.sealer(0).seal(heartbeat(world), to: world.id(1), now: now).bytes
        var junk = good
        junk[40] ^= 0xFF
        let envelopes = (0..<64).map { $0 % 3 == 0 ? junk : good }
        let now = self.now
        let expected = envelopes.map { opener.check($0, now: now) }
        let results = Mutex<[Int: EnvelopeCheck]>([:])
        DispatchQueue.concurrentPerform(iterations: envelopes.count) { index in
            let check = opener.check(envelopes[index], now: now)
            results.withLock { $0[index] = check }
        }
        XCTAssertEqual(envelopes.indices.map { results.withLock { $0 }[$0] }, expected)
    }
}
