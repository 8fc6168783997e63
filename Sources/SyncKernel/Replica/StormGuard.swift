/// Bounds reconcile rounds with one sibling: a storm is diverging, reconciling, reaching nothing
/// new, again.
///
/// A round is one reconcile request started for one namespace with this sibling. Its pair is that
/// namespace's (root here, sibling's root) in the two digests the round was started from. Each
/// round is one of three kinds:
/// - progress: its pair was not the pair of any round of the namespace inside the window. A local
///   write on either side, a write received from any device and a merge that reached a new state
///   all move a root to where the pair has not been, so writes still arriving are never a storm.
/// - without progress: its pair was already seen inside the window although, since the previous
///   round of the namespace, rows (or delete versions) of it went both ways with this sibling, and
///   the sibling has answered a request sent since the last round that counted (this round
///   follows that one a round trip later). Each side has shipped the other what differs, and the
///   pair is where it was (a hashed field the merge cannot converge) or back where it was (a merge
///   that flips a row between states).
/// - neutral: any other round whose pair was already seen: a request that overlapped one still in
///   flight, a digest the sibling sent before our rows reached it, a lost frame, a one-way pull
///   while the sibling's own request is pending. It neither counts nor resets the count.
///
/// Invariants:
/// - A namespace's count is its rounds without progress since its last round with progress,
///   inside `stormWindowMillis`; the round that makes it exceed `stormRoundLimit` trips the guard
///   (the `stormRoundLimit + 1`-th, the spec's "more than eight rounds inside ten seconds") and
///   the trip names exactly the namespaces over the limit, in the order given.
/// - Answers are matched to requests oldest first; a request unanswered after
///   `requestTimeoutMillis` is dropped (lost, or its responder had nothing to give).
/// - A trip holds rounds back until `backoffUntil` (`stormBackoffMillis` later); when the back-off
///   ends every namespace counts afresh.
/// - At most `roundsKept` rounds and `roundsKept` pending requests are remembered per namespace
///   (the oldest are forgotten first), so a sibling's frames cannot grow the guard without bound.
package struct StormGuard: Sendable, Hashable {
    /// What a round made of the pair of roots it started from.
    private enum Kind: Sendable, Hashable {
        case progress
        case withoutProgress
        case neutral
    }

    /// One round as remembered: when it started, its pair of roots and what it made of them.
    private struct Round: Sendable, Hashable {
        let time: Int64
        let mine: [UInt8]
        let theirs: [UInt8]
        let kind: Kind
    }

    /// Most rounds, and most pending requests, remembered per namespace.
    package static let roundsKept = 256

    private var rounds: [String: [Round]] = [:]
    private var shippedToSibling: Set<String> = []
    private var shippedBySibling: Set<String> = []
    /// Per namespace, the start times of the requests sent and not yet answered, oldest first.
    private var pending: [String: [Int64]] = [:]
    /// Per namespace, the start time of the newest request the sibling answered.
    private var answeredThrough: [String: Int64] = [:]
    /// Per namespace, the start time of the last round that made progress or was counted.
    private var chainTip: [String: Int64] = [:]
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
        forgetRounds()
        return true
    }

    /// Notes that this replica sent the sibling rows or delete versions of `namespace` (an answer
    /// to its request or a ship-back).
    package mutating func recordShipped(_ namespace: String) {
        shippedToSibling.insert(namespace)
    }

    /// Notes that the sibling sent this replica rows or delete versions of `namespace`.
    package mutating func recordReceived(_ namespace: String) {
        shippedBySibling.insert(namespace)
    }

    /// Notes at `now` a request this replica sent the sibling for `namespace` outside a round (the
    /// next step of an exchange: a larger sketch, a trie comparison, a whole-namespace request).
    package mutating func recordRequest(_ namespace: String, at now: Int64, timing: LoopTiming) {
        addPending(namespace, at: now, timing: timing)
    }

    /// Notes at `now` that the sibling answered a request of ours for `namespace` (a response that
    /// is not a ship-back): the oldest request still pending, once those older than
    /// `requestTimeoutMillis` (lost or left unanswered) are dropped.
    package mutating func recordAnswer(_ namespace: String, at now: Int64, timing: LoopTiming) {
        pending[namespace]?.removeAll { $0 <= now - timing.requestTimeoutMillis }
        guard let oldest = pending[namespace]?.first else { return }
        pending[namespace]?.removeFirst()
        answeredThrough[namespace] = max(answeredThrough[namespace] ?? oldest, oldest)
    }

    /// Rounds without progress of `namespace` since its last round with progress, inside the
    /// window ending at `now`: the count the guard compares with `stormRoundLimit`.
    package func roundsWithoutProgress(_ namespace: String, at now: Int64, timing: LoopTiming) -> Int {
        let horizon = now - timing.stormWindowMillis
        let kept = rounds[namespace, default: []].filter { $0.time > horizon }
        let start = kept.lastIndex { $0.kind == .progress }.map { $0 + 1 } ?? kept.startIndex
        return kept[start...].count { $0.kind == .withoutProgress }
    }

    /// Records at `now` one round for each of `namespaces` (those a request is about to be sent
    /// for), with their roots read from `mine` and `theirs`; returns the namespaces that trip the
    /// guard (empty when none does, and then the requests go ahead). A namespace either digest
    /// does not name is not counted.
    package mutating func recordRound(at now: Int64, namespaces: [String], mine: StateDigest, theirs: StateDigest,
                                      timing: LoopTiming) -> [String] {
        let horizon = now - timing.stormWindowMillis
        for name in rounds.keys.sorted() {
            rounds[name]?.removeAll { $0.time <= horizon }
            if rounds[name]?.isEmpty == true { rounds[name] = nil }
        }
        var tripped: [String] = []
        for name in namespaces {
            guard let mineIndex = mine.namespaces.firstIndex(of: name),
                  let theirIndex = theirs.namespaces.firstIndex(of: name) else { continue }
            let (myRoot, theirRoot) = (mine.roots[mineIndex], theirs.roots[theirIndex])
            var kept = rounds[name, default: []]
            let kind: Kind
            if !kept.contains(where: { $0.mine == myRoot && $0.theirs == theirRoot }) {
                kind = .progress
            } else if shippedToSibling.contains(name), shippedBySibling.contains(name),
                      let answered = answeredThrough[name], let tip = chainTip[name], answered >= tip {
                kind = .withoutProgress
            } else {
                kind = .neutral
            }
            shippedToSibling.remove(name)
            shippedBySibling.remove(name)
            if kind != .neutral { chainTip[name] = now }
            addPending(name, at: now, timing: timing)
            kept.append(Round(time: now, mine: myRoot, theirs: theirRoot, kind: kind))
            if kept.count > Self.roundsKept { kept.removeFirst(kept.count - Self.roundsKept) }
            rounds[name] = kept
            if roundsWithoutProgress(name, at: now, timing: timing) > timing.stormRoundLimit { tripped.append(name) }
        }
        guard !tripped.isEmpty else { return [] }
        backoffUntil = now + timing.stormBackoffMillis
        forgetRounds()
        return tripped
    }

    private mutating func addPending(_ namespace: String, at now: Int64, timing: LoopTiming) {
        var requests = pending[namespace, default: []]
        requests.removeAll { $0 <= now - timing.requestTimeoutMillis }
        requests.append(now)
        if requests.count > Self.roundsKept { requests.removeFirst(requests.count - Self.roundsKept) }
        pending[namespace] = requests
    }

    private mutating func forgetRounds() {
        rounds.removeAll()
        shippedToSibling.removeAll()
        shippedBySibling.removeAll()
        pending.removeAll()
        answeredThrough.removeAll()
        chainTip.removeAll()
    }
}
