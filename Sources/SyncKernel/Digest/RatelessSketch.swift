/// The first `capacity` coded symbols of a set, kept current item by item.
///
/// Invariants: `symbols.count == capacity`; symbol `i` is the sum of exactly the items applied
/// so far whose mapping reaches `i`, so the sketch depends on the set (items added minus items
/// removed), never on the order of updates; any prefix of `symbols` is the sketch of the same
/// set at that smaller capacity.
package struct RatelessSketch: Sendable, Equatable {
    /// The capacity sketches are kept at unless a caller asks otherwise.
    package static let standardCapacity = 4096

    /// How many coded symbols the sketch keeps, never negative.
    package let capacity: Int
    /// The coded symbols, exactly `capacity` of them.
    package private(set) var symbols: [CodedSymbol]

    /// The sketch of the empty set; a negative capacity is taken as zero.
    ///
    /// Invariant: every symbol is `CodedSymbol.zero`.
    package init(capacity: Int = RatelessSketch.standardCapacity) {
        self.capacity = max(0, capacity)
        symbols = Array(repeating: .zero, count: self.capacity)
    }

    /// Adds (`direction` +1) or removes (-1) `item` in every symbol its mapping reaches below
    /// `capacity`, calling `touched` once per index, in ascending order, after updating it.
    ///
    /// Invariant: only the touched symbols change; builds no index list and allocates only when a
    /// symbol's key sum grows.
    package mutating func apply(_ item: SketchItem, direction: Int64, touched: (Int) -> Void = { _ in }) {
        var mapping = SymbolMapping(seed: item.seed, limit: capacity)
        while let index = mapping.next() {
            symbols[index].mix(key: item.key, tag: item.tag, direction: direction)
            touched(index)
        }
    }

    /// Replaces the symbol at `index`, as when loading persisted symbols.
    ///
    /// Invariant: `index < capacity` is the caller's duty (checked by a precondition).
    package mutating func setSymbol(_ symbol: CodedSymbol, at index: Int) {
        precondition(index >= 0 && index < capacity, "symbol index outside the sketch")
        symbols[index] = symbol
    }

    /// The symbol indices `item` maps to below `limit`, ascending.
    ///
    /// Invariant: starts with 0 whenever `limit > 0`; the list is a function of the item's seed
    /// alone (so of its key and tag), and the list for a smaller limit is a prefix of the list for
    /// a larger one.
    package static func indices(of item: SketchItem, below limit: Int) -> [Int] {
        var mapping = SymbolMapping(seed: item.seed, limit: limit)
        var result: [Int] = []
        while let index = mapping.next() {
            result.append(index)
        }
        return result
    }
}
