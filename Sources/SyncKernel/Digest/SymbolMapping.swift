/// The coded-symbol indices one item is mapped to, below a limit, in ascending order: the
/// rateless IBLT mapping of Yang, Gilad and Alizadeh (SIGCOMM 2024).
///
/// Invariants: the sequence depends only on the seed (an item's `SketchItem.seed`, a function
/// of its key and tag) and is cut at `limit`;
/// index 0 always comes first (when `limit > 0`); each further index is the reference
/// generator's next one, a multiplicative step of the 64-bit state then a gap of
/// `ceil((last + 1.5) * (2^32 / sqrt(state + 1) - 1))`, which puts index `i` in the sequence
/// with probability `1 / (1 + i / 2)`. A gap that rounds to zero (a state within 2^10 of
/// 2^64) counts as one, so indices strictly ascend and the iteration always ends; no
/// intermediate value can overflow or trap, whatever the seed and limit.
package struct SymbolMapping: IteratorProtocol, Sendable {
    /// The multiplier of the state update, the reference's odd constant.
    private static let multiplier: UInt64 = 0xda94_2042_e4dd_58b5

    /// The generator state, advanced once per index after the first.
    private var state: UInt64
    /// The last index returned, or -1 before the first.
    private var last: Int
    /// The exclusive bound on returned indices.
    private let limit: Int

    /// A mapping seeded by `seed`, yielding indices below `limit` (none when `limit <= 0`).
    package init(seed: UInt64, limit: Int) {
        state = seed
        last = -1
        self.limit = limit
    }

    /// The next index below the limit, or nil once the sequence passes it.
    ///
    /// Invariant: after the first nil, every further call returns nil.
    package mutating func next() -> Int? {
        guard last < limit else { return nil }
        guard last >= 0 else {
            last = limit > 0 ? 0 : limit
            return limit > 0 ? 0 : nil
        }
        state = state &* Self.multiplier
        let scale = 4_294_967_296.0 / (Double(state) + 1).squareRoot() - 1
        let gap = ((Double(last) + 1.5) * scale).rounded(.up)
        let room = limit - last
        guard gap < Double(room) else {
            last = limit
            return nil
        }
        let step = max(1, Int(gap))
        guard step < room else {
            last = limit
            return nil
        }
        last += step
        return last
    }
}
