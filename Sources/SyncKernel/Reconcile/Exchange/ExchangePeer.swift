/// What an exchange may read of the sibling it runs with, taken from the replica's state of it
/// when a step starts.
///
/// Invariant: a value, never updated by the exchange; what a round learns goes back through the
/// frames it returns.
package struct ExchangePeer: Sendable {
    /// The change marks this device holds of the sibling.
    package let marks: ChangeMarks
    /// The sibling reads sketches past the standard capacity (`SyncFrame.wideCapability`).
    package let readsWide: Bool

    /// What an exchange reads of a sibling: the marks held of it and whether it reads wide sketches.
    package init(marks: ChangeMarks, readsWide: Bool) {
        self.marks = marks
        self.readsWide = readsWide
    }
}
