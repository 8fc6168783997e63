/// The coded symbols of a namespace's rateless sketch past the standard capacity: indices
/// `lowerBound ..< capacity` (4,096 to 262,144), in blocks of `blockSymbols` allocated on first
/// use, so that a sketch request can carry enough symbols for a difference of up to about
/// 160,000 items.
///
/// Invariants: symbol `i` is the sum of exactly the items applied so far whose `SymbolMapping`
/// reaches `i`, so the tier depends on the set alone, never on the order of updates; with the
/// standard sketch of the same set (`RatelessSketch`, indices below `lowerBound`) it is the
/// sketch of capacity `capacity`, and any prefix of that is the sketch at a smaller capacity. An
/// unallocated block (an empty array) holds zero symbols and `==` treats it so. Copying is one
/// array of block references: a transaction's working copy copies only the blocks it writes.
package struct WideSketch: Sendable, Equatable {
    /// The first index the tier holds: the standard capacity.
    package static let lowerBound = RatelessSketch.standardCapacity
    /// The exclusive bound on its indices: 2^18 symbols in all, which decode about 160,000
    /// differing items (`KernelStore.wideDecodableItems`).
    package static let capacity = 1 << 18
    /// Symbols per block, the unit of allocation and of persistence (`sk_wide`).
    package static let blockSymbols = 64
    /// How many blocks the tier has: 4,032.
    package static let blockCount = (capacity - lowerBound) / blockSymbols

    /// The blocks, each empty (all zero) or exactly `blockSymbols` symbols.
    private var blocks: [[CodedSymbol]] = Array(repeating: [], count: WideSketch.blockCount)

    /// The tier of the empty set.
    package init() {}

    /// Adds (`direction` +1) or removes (-1) `item` in every symbol of the tier its mapping
    /// reaches, calling `touched` with each block index it changes.
    ///
    /// Invariant: only the reached symbols change; a block is allocated only when first reached.
    package mutating func apply(_ item: SketchItem, direction: Int64, touched: (Int) -> Void = { _ in }) {
        var mapping = SymbolMapping(seed: item.seed, limit: WideSketch.capacity)
        while let index = mapping.next() {
            guard index >= WideSketch.lowerBound else { continue }
            let offset = index - WideSketch.lowerBound
            let block = offset / WideSketch.blockSymbols
            if blocks[block].isEmpty { blocks[block] = Array(repeating: .zero, count: WideSketch.blockSymbols) }
            blocks[block][offset % WideSketch.blockSymbols].mix(key: item.key, tag: item.tag, direction: direction)
            touched(block)
        }
    }

    /// The symbols of block `block` (zero symbols for an unallocated one).
    ///
    /// Invariant: exactly `blockSymbols` symbols; `block` within `0..<blockCount` is the caller's
    /// duty (checked by a precondition).
    package func block(_ block: Int) -> [CodedSymbol] {
        precondition(block >= 0 && block < WideSketch.blockCount, "a wide block outside the tier")
        return blocks[block].isEmpty ? Array(repeating: .zero, count: WideSketch.blockSymbols) : blocks[block]
    }

    /// Whether block `block` holds only zero symbols.
    package func blockIsZero(_ block: Int) -> Bool {
        blocks[block].allSatisfy(\.isZero)
    }

    /// Replaces block `block`, as when loading persisted blocks.
    ///
    /// Invariant: `symbols.count == blockSymbols` and `block < blockCount` are the caller's duty
    /// (checked by a precondition).
    package mutating func setBlock(_ symbols: [CodedSymbol], at block: Int) {
        precondition(block >= 0 && block < WideSketch.blockCount && symbols.count == WideSketch.blockSymbols,
                     "a wide block of the wrong size or outside the tier")
        blocks[block] = symbols
    }

    /// Appends the symbols at indices `range` (clamped to the tier) to `symbols`.
    ///
    /// Invariant: appends `range.clamped(to: lowerBound..<capacity).count` symbols, in order.
    package func append(_ range: Range<Int>, to symbols: inout [CodedSymbol]) {
        let clamped = range.clamped(to: WideSketch.lowerBound..<WideSketch.capacity)
        for index in clamped {
            let offset = index - WideSketch.lowerBound
            let block = blocks[offset / WideSketch.blockSymbols]
            symbols.append(block.isEmpty ? .zero : block[offset % WideSketch.blockSymbols])
        }
    }

    package static func == (lhs: WideSketch, rhs: WideSketch) -> Bool {
        for block in 0..<blockCount where lhs.blocks[block] != rhs.blocks[block] {
            guard lhs.blockIsZero(block), rhs.blockIsZero(block) else { return false }
        }
        return true
    }
}
