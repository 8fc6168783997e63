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
/// it should hold (`forget`). The store keeps them per peer (`KernelStore.changeMarks(with:)`), so
/// they outlive a restart and travel with the store's own counters when it is restored.
package struct ChangeMarks: Sendable, Hashable {
    /// Both sides' item change counters of one namespace at its last equal roots.
    package struct Mark: Sendable, Hashable {
        /// This device's counter.
        package let mine: UInt64
        /// The peer's counter.
        package let theirs: UInt64
    }

    /// Counters at the last equal roots, by namespace.
    package private(set) var marks: [String: Mark] = [:]

    /// No marks yet: every estimate is unknown.
    package init() {}

    /// The marks `marks` names (as the store kept them).
    package init(marks: [String: Mark]) {
        self.marks = marks
    }

    /// Records the counters of every namespace whose roots are equal now.
    package mutating func record(equal namespaces: some Sequence<String>, names: [String],
                                 mine: [UInt64], theirs: [UInt64]) {
        guard mine.count == names.count, theirs.count == names.count else { return }
        let index = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        for name in namespaces {
            guard let position = index[name] else { continue }
            record(name, mine: mine[position], theirs: theirs[position])
        }
    }

    /// Records the counters of `namespace`, whose roots are equal now (a push or its
    /// acknowledgement showed it).
    package mutating func record(_ namespace: String, mine: UInt64, theirs: UInt64) {
        marks[namespace] = Mark(mine: mine, theirs: theirs)
    }

    /// Drops the mark of `namespace` when the peer's counter `theirs` is below the one recorded
    /// (as `forgetRolledBack(names:theirs:)` does for every namespace).
    package mutating func forgetRolledBack(_ namespace: String, theirs: UInt64) {
        if let mark = marks[namespace], theirs < mark.theirs { marks[namespace] = nil }
    }

    /// Drops the mark of every namespace whose peer counter in `theirs` is below the one
    /// recorded: the peer's store went back in time (restored, rebuilt), so it no longer holds
    /// every version it held at the mark.
    package mutating func forgetRolledBack(names: [String], theirs: [UInt64]) {
        guard theirs.count == names.count else { return }
        for (name, counter) in zip(names, theirs) { forgetRolledBack(name, theirs: counter) }
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
