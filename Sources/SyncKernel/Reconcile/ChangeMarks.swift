/// What one device remembers of the last time it and one peer held equal roots, namespace by
/// namespace: both sides' item change counters at that moment. From them it bounds how many
/// items can differ now, which sizes the first `sketch_req`.
///
/// Invariants: a mark is recorded only when both roots of a namespace are equal, so the sets
/// were equal then; every item added or removed since on either side moved a counter, so the
/// symmetric difference now holds at most (mine now - mine then) + (theirs now - theirs then)
/// items. A counter that went backwards (a store rebuilt or restored) makes the bound unknown.
/// A mark is also a claim that the peer still holds what it held then, unless it changed it
/// since; a peer whose store went back in time breaks that claim, so a mark is dropped when the
/// peer's counter goes backwards (`forgetRolledBack`) or when the peer turns out to lack a version
/// it should hold (`forget`).
package struct ChangeMarks: Sendable {
    /// Counters at the last equal roots, by namespace.
    private var marks: [String: (mine: UInt64, theirs: UInt64)] = [:]

    /// No marks yet: every estimate is unknown.
    package init() {}

    /// Records the counters of every namespace whose roots are equal now.
    package mutating func record(equal namespaces: some Sequence<String>, names: [String],
                                 mine: [UInt64], theirs: [UInt64]) {
        guard mine.count == names.count, theirs.count == names.count else { return }
        let index = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        for name in namespaces {
            guard let position = index[name] else { continue }
            marks[name] = (mine[position], theirs[position])
        }
    }

    /// Drops the mark of every namespace whose peer counter in `theirs` is below the one
    /// recorded: the peer's store went back in time (restored, rebuilt), so it no longer holds
    /// every version it held at the mark.
    package mutating func forgetRolledBack(names: [String], theirs: [UInt64]) {
        guard theirs.count == names.count else { return }
        for (name, counter) in zip(names, theirs) where marks[name].map({ counter < $0.theirs }) == true {
            marks[name] = nil
        }
    }

    /// Drops the mark of `namespace`: the peer lacks a version the mark said it held.
    package mutating func forget(_ namespace: String) {
        marks[namespace] = nil
    }

    /// This device's own change counter at the last equal roots of `namespace`, nil when unknown.
    /// A row whose item last moved at or before it was held alike by the peer then.
    package func myCounter(at namespace: String) -> UInt64? {
        marks[namespace]?.mine
    }

    /// The most items that can differ in `namespace` now, or nil when unknown.
    package func expectedItems(_ namespace: String, names: [String], mine: [UInt64], theirs: [UInt64]) -> Int? {
        guard let mark = marks[namespace], mine.count == names.count, theirs.count == names.count,
              let position = names.firstIndex(of: namespace),
              mine[position] >= mark.mine, theirs[position] >= mark.theirs else { return nil }
        let (sum, overflow) = (mine[position] - mark.mine).addingReportingOverflow(theirs[position] - mark.theirs)
        return overflow || sum > UInt64(Int.max) ? nil : Int(sum)
    }

}
