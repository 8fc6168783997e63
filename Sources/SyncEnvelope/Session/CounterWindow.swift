/// The replay guard of one receiving session: which frame counters were accepted, over a
/// sliding window below the highest.
///
/// Invariants: a counter is admitted at most once: above the highest accepted, or within
/// `width` below it and not accepted yet; anything further below is refused as too old (it
/// may have been accepted and forgotten). Memory is fixed (`width` bits), whatever the
/// counters; each record clears at most `width` bits. Lost or reordered frames within the window
/// cost nothing.
package struct CounterWindow: Sendable, Hashable {
    /// How many counters below the highest are remembered.
    package static let width = 1_024
    private var highest: UInt64?
    /// Bit `c % width` says whether counter `c` (within the window) was accepted.
    private var bits = [UInt64](repeating: 0, count: CounterWindow.width / 64)

    /// An empty window: every counter is admitted.
    package init() {}

    /// Whether `counter` would be accepted now.
    package func admits(_ counter: UInt64) -> Bool {
        guard let highest, counter <= highest else { return true }
        guard highest - counter < UInt64(CounterWindow.width) else { return false }
        return !isSet(counter)
    }

    /// Records `counter` as accepted; false (nothing changes) when it is not admitted.
    @discardableResult
    package mutating func record(_ counter: UInt64) -> Bool {
        guard admits(counter) else { return false }
        if let highest, counter <= highest {
            set(counter)
            return true
        }
        let previous = highest
        highest = counter
        if let previous, counter - previous < UInt64(CounterWindow.width) {
            var clear = previous + 1
            while clear < counter {
                unset(clear)
                clear += 1
            }
            unset(counter)
        } else {
            bits = [UInt64](repeating: 0, count: CounterWindow.width / 64)
        }
        set(counter)
        return true
    }

    private func position(_ counter: UInt64) -> (word: Int, mask: UInt64) {
        let slot = Int(counter % UInt64(CounterWindow.width))
        return (slot / 64, UInt64(1) << UInt64(slot % 64))
    }

    private func isSet(_ counter: UInt64) -> Bool {
        let (word, mask) = position(counter)
        return bits[word] & mask != 0
    }

    private mutating func set(_ counter: UInt64) {
        let (word, mask) = position(counter)
        bits[word] |= mask
    }

    private mutating func unset(_ counter: UInt64) {
        let (word, mask) = position(counter)
        bits[word] &= ~mask
    }
}
