/// Bounds reconcile rounds with one sibling: a storm is diverging, reconciling, changing nothing, again.
///
/// Invariants: a round trips the guard when it is the `stormRoundLimit + 1`-th round inside the
/// window since the sibling last made progress (a response from it that moved our digest), or the
/// `stormTotalRoundLimit + 1`-th round inside the window at all (a flip-flop that changes
/// something every time is a storm too). After a trip the guard holds until `backoffUntil`, then
/// counts afresh.
package struct StormGuard: Sendable, Hashable {
    private var idleRounds: [Int64] = []
    private var allRounds: [Int64] = []
    /// The end of the current back-off, if the guard has tripped.
    package private(set) var backoffUntil: Int64?

    /// A guard with no rounds recorded.
    package init() {}

    /// Whether rounds are held back at `now`.
    package func isBackingOff(at now: Int64) -> Bool {
        guard let backoffUntil else { return false }
        return now < backoffUntil
    }

    /// Ends an expired back-off; returns true exactly once when it ends.
    package mutating func expireBackoff(at now: Int64) -> Bool {
        guard let until = backoffUntil, now >= until else { return false }
        backoffUntil = nil
        idleRounds.removeAll()
        allRounds.removeAll()
        return true
    }

    /// Notes that the sibling's last response changed our state: idle rounds start over.
    package mutating func recordProgress() {
        idleRounds.removeAll()
    }

    /// Records a round at `now`; returns true when this round trips the guard.
    package mutating func recordRound(at now: Int64, timing: LoopTiming) -> Bool {
        let horizon = now - timing.stormWindowMillis
        idleRounds.removeAll { $0 <= horizon }
        allRounds.removeAll { $0 <= horizon }
        idleRounds.append(now)
        allRounds.append(now)
        guard idleRounds.count > timing.stormRoundLimit || allRounds.count > timing.stormTotalRoundLimit else {
            return false
        }
        backoffUntil = now + timing.stormBackoffMillis
        idleRounds.removeAll()
        allRounds.removeAll()
        return true
    }
}
