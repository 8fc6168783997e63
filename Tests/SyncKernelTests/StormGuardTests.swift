import SyncKernel
import XCTest

/// The storm guard's rule on its own: per namespace, a round whose pair of roots was already seen
/// inside the window after rows went both ways made no progress; the round that makes more than
/// `stormRoundLimit` of those since the last progress trips it.
final class StormGuardTests: XCTestCase {
    private let timing = LoopTiming()

    /// A digest naming `namespaces` with a root made from each number.
    private func digest(_ roots: [String: UInt8], namespaces: [String] = ["a", "b"]) -> StateDigest {
        StateDigest(schema: SchemaFingerprint(value: 1), namespaces: namespaces,
                    roots: namespaces.map { [UInt8](repeating: roots[$0] ?? 0, count: 32) })
    }

    /// One round of `namespaces` at `now` from the pair (mine, theirs) of each, after the sibling
    /// answered the previous round's request (unless `answered` is false) and rows went both ways
    /// (or only from the sibling when `bothWays` is false); returns what tripped.
    private func round(_ guardian: inout StormGuard, at now: Int64, _ namespaces: [String], mine: [String: UInt8],
                       theirs: [String: UInt8], bothWays: Bool = true, answered: Bool = true) -> [String] {
        for name in namespaces {
            if answered { guardian.recordAnswer(name, at: now, timing: timing) }
            guardian.recordReceived(name)
            if bothWays { guardian.recordShipped(name) }
        }
        return guardian.recordRound(at: now, namespaces: namespaces, mine: digest(mine), theirs: digest(theirs), timing: timing)
    }

    func testAPairThatNeverMovesTripsOnTheNinthRoundWithoutProgress() {
        var guardian = StormGuard()
        for index in 0..<9 {
            XCTAssertEqual(round(&guardian, at: Int64(index) * 500, ["a"], mine: ["a": 1], theirs: ["a": 2]), [],
                           "round \(index + 1): the first makes progress, the next eight are within the limit")
        }
        XCTAssertEqual(guardian.roundsWithoutProgress("a", at: 4_000, timing: timing), 8)
        XCTAssertEqual(round(&guardian, at: 4_500, ["a"], mine: ["a": 1], theirs: ["a": 2]), ["a"])
        XCTAssertEqual(guardian.backoffUntil, 4_500 + timing.stormBackoffMillis)
        XCTAssertTrue(guardian.isBackingOff(at: 34_499))
        XCTAssertFalse(guardian.isBackingOff(at: 34_500))
    }

    func testAFlipFlopBetweenTwoStatesTripsOnTheNinthRoundWithoutProgress() {
        var guardian = StormGuard()
        var tripped: [String] = []
        var rounds = 0
        while tripped.isEmpty, rounds < 50 {
            let flipped = rounds % 2 == 1
            tripped = round(&guardian, at: Int64(rounds) * 300, ["a"], mine: ["a": flipped ? 2 : 1], theirs: ["a": flipped ? 1 : 2])
            rounds += 1
        }
        XCTAssertEqual(tripped, ["a"])
        XCTAssertEqual(rounds, 11, "two rounds reach the two states, the ninth revisit trips")
    }

    func testRoundsThatReachNewPairsNeverTripHoweverMany() {
        var guardian = StormGuard()
        for index in 0..<1_000 {
            let mine = UInt8(index % 251), theirs = UInt8((index * 7 + 3) % 253)
            let root = ["a": mine, "b": mine &+ 1]
            XCTAssertEqual(round(&guardian, at: Int64(index) * 10, ["a", "b"], mine: root, theirs: ["a": theirs, "b": theirs]), [],
                           "round \(index): every write moves a root somewhere new")
        }
    }

    func testARevisitWithoutRowsBothWaysIsNeutral() {
        var guardian = StormGuard()
        for index in 0..<100 {
            XCTAssertEqual(round(&guardian, at: Int64(index) * 100, ["a"], mine: ["a": 1], theirs: ["a": 2], bothWays: false), [],
                           "a one-way pull (the sibling's own request pending) is no storm")
        }
        XCTAssertEqual(guardian.roundsWithoutProgress("a", at: 9_900, timing: timing), 0)
        var counted = 0
        for index in 100..<120 {
            let both = index % 2 == 0
            if !round(&guardian, at: Int64(index) * 100, ["a"], mine: ["a": 1], theirs: ["a": 2], bothWays: both).isEmpty { break }
            if both { counted += 1 }
        }
        XCTAssertEqual(counted, 8, "neutral rounds between them neither count nor reset the count")
    }

    func testARoundWithProgressStartsTheCountOver() {
        var guardian = StormGuard()
        var now: Int64 = 0
        func next(_ mine: UInt8) -> [String] {
            now += 200
            return round(&guardian, at: now, ["a"], mine: ["a": mine], theirs: ["a": 9])
        }
        XCTAssertEqual(next(1), [])
        for _ in 0..<8 { XCTAssertEqual(next(1), []) }
        XCTAssertEqual(next(2), [], "a local write moved our root: progress")
        for _ in 0..<8 { XCTAssertEqual(next(2), []) }
        XCTAssertEqual(guardian.roundsWithoutProgress("a", at: now, timing: timing), 8)
        XCTAssertEqual(next(2), ["a"])
    }

    func testRoundsOlderThanTheWindowDoNotCount() {
        var slow = StormGuard()
        for index in 0..<100 {
            XCTAssertEqual(round(&slow, at: Int64(index) * 1_250, ["a"], mine: ["a": 1], theirs: ["a": 2]), [],
                           "at most eight rounds fall inside any ten seconds")
        }
        var fast = StormGuard()
        let trips = (0..<20).map { round(&fast, at: Int64($0) * 1_100, ["a"], mine: ["a": 1], theirs: ["a": 2]) }
        XCTAssertEqual(trips.firstIndex { !$0.isEmpty }, 9, "nine rounds without progress 1.1 s apart fit in the window")
    }

    func testOnlyTheNamespacesOverTheLimitAreNamed() {
        var guardian = StormGuard()
        var tripped: [String] = []
        for index in 0..<10 where tripped.isEmpty {
            tripped = round(&guardian, at: Int64(index) * 400, ["a", "b"], mine: ["a": 1, "b": UInt8(index)], theirs: ["a": 2, "b": 200])
        }
        XCTAssertEqual(tripped, ["a"], "b's rounds all reached new pairs")
    }

    func testTheBackOffEndsOnceAndTheGuardCountsAfresh() {
        var guardian = StormGuard()
        for index in 0..<10 { _ = round(&guardian, at: Int64(index) * 100, ["a"], mine: ["a": 1], theirs: ["a": 2]) }
        XCTAssertEqual(guardian.backoffUntil, 900 + timing.stormBackoffMillis)
        XCTAssertFalse(guardian.expireBackoff(at: 30_899))
        XCTAssertTrue(guardian.expireBackoff(at: 30_900))
        XCTAssertFalse(guardian.expireBackoff(at: 30_901), "exactly once")
        XCTAssertNil(guardian.backoffUntil)
        for index in 0..<9 {
            XCTAssertEqual(round(&guardian, at: 31_000 + Int64(index) * 100, ["a"], mine: ["a": 1], theirs: ["a": 2]), [],
                           "the storm's pair is new again after the back-off")
        }
        XCTAssertEqual(round(&guardian, at: 32_000, ["a"], mine: ["a": 1], theirs: ["a": 2]), ["a"])
    }

    func testANamespaceEitherDigestLacksIsNotCounted() {
        var guardian = StormGuard()
        for index in 0..<20 {
            XCTAssertEqual(round(&guardian, at: Int64(index) * 100, ["z"], mine: ["a": 1], theirs: ["a": 2]), [])
        }
        XCTAssertEqual(guardian.roundsWithoutProgress("z", at: 1_900, timing: timing), 0)
    }

    func testAtMostRoundsKeptPairsAreRememberedPerNamespace() {
        var guardian = StormGuard()
        let count = StormGuard.roundsKept + 44
        for index in 0..<count {
            _ = round(&guardian, at: Int64(index), ["a"], mine: ["a": UInt8(index % 256)], theirs: ["a": UInt8(index / 256)])
        }
        _ = round(&guardian, at: Int64(count), ["a"], mine: ["a": UInt8((count - 1) % 256)], theirs: ["a": UInt8((count - 1) / 256)])
        XCTAssertEqual(guardian.roundsWithoutProgress("a", at: Int64(count), timing: timing), 1, "the newest pair is remembered")
        _ = round(&guardian, at: Int64(count + 1), ["a"], mine: ["a": 0], theirs: ["a": 0])
        XCTAssertEqual(guardian.roundsWithoutProgress("a", at: Int64(count + 1), timing: timing), 0,
                       "the oldest pair was forgotten: its revisit counts as progress")
    }
    func testARoundThatOverlapsAnUnansweredRequestIsNeutral() {
        var guardian = StormGuard()
        XCTAssertEqual(round(&guardian, at: 0, ["a"], mine: ["a": 1], theirs: ["a": 2]), [])
        for index in 1..<50 {
            XCTAssertEqual(round(&guardian, at: Int64(index) * 20, ["a"], mine: ["a": 1], theirs: ["a": 2], answered: false), [],
                           "stale digests re-trigger the round before the sibling could answer it")
        }
        XCTAssertEqual(guardian.roundsWithoutProgress("a", at: 980, timing: timing), 0)
    }

    func testAPipelinedStormCountsOneRoundPerRoundTrip() {
        var guardian = StormGuard()
        var tripped: [String] = []
        var counted: [Int64] = []
        var now: Int64 = 0
        // A round every 100 ms (every digest restarts it), each answered 300 ms later: three in
        // flight at a time, answers matched oldest first.
        while tripped.isEmpty, now < 10_000 {
            if now >= 300 { guardian.recordAnswer("a", at: now, timing: timing) }
            guardian.recordReceived("a")
            guardian.recordShipped("a")
            let before = guardian.roundsWithoutProgress("a", at: now, timing: timing)
            tripped = guardian.recordRound(at: now, namespaces: ["a"], mine: digest(["a": 1]), theirs: digest(["a": 2]), timing: timing)
            if tripped.isEmpty, guardian.roundsWithoutProgress("a", at: now, timing: timing) > before { counted.append(now) }
            now += 100
        }
        XCTAssertEqual(tripped, ["a"], "a pipelined storm still trips")
        XCTAssertEqual(counted, (1...8).map { Int64($0) * 300 }, "one round counts per answer reaching past the last counted round")
        XCTAssertEqual(now - 100, 2_700)
    }

    func testARequestLeftUnansweredPastTheTimeoutIsDropped() {
        var guardian = StormGuard()
        _ = guardian.recordRound(at: 0, namespaces: ["a"], mine: digest(["a": 1]), theirs: digest(["a": 2]), timing: timing)
        guardian.recordRequest("a", at: 100, timing: timing)
        guardian.recordAnswer("a", at: 100 + timing.requestTimeoutMillis + 1, timing: timing)
        guardian.recordReceived("a")
        guardian.recordShipped("a")
        XCTAssertEqual(guardian.recordRound(at: 1_700, namespaces: ["a"], mine: digest(["a": 1]), theirs: digest(["a": 2]), timing: timing), [])
        XCTAssertEqual(guardian.roundsWithoutProgress("a", at: 1_700, timing: timing), 0,
                       "both requests had timed out: the late answer matches neither")
    }
}
