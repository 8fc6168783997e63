import Foundation
import Synchronization
@testable import SyncEnvelope
import SyncKernel
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
        XCTAssertEqual(staged.dropCounts, [.replayed: 1, .outsideWindow: 1], "the gate counts only what reached it")
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
