/// Recovers the difference between two sets from a remote sketch prefix and the local sketch.
///
/// Invariants: decoding is a pure function of its inputs; it returns a difference only when the
/// peeling left every symbol zero, so the difference accounts for every symbol it was given;
/// its work is bounded by `maxItems` peeled items whatever the symbols hold, and it never traps.
package enum SketchDecoder {
    /// Subtracts `local[i]` from `remote[i]` for `i < remote.count` and peels the result.
    ///
    /// Peeling repeatedly takes a pure symbol, records its item (count +1 in `remoteOnly`, -1 in
    /// `localOnly`) and removes the item from every symbol its mapping reaches below
    /// `remote.count`. A symbol at index `i` is taken for pure only when `CodedSymbol.pureItem`
    /// accepts it (count, framing, 16-bit key check) and the item's own mapping reaches `i`: a
    /// truly pure symbol always passes, and a mixture that passes the key check by chance (about
    /// once in 65,536 tests) is refused again unless its garbage item's mapping happens to reach
    /// that index (probability `1 / (1 + i / 2)`). Returns nil when `local` is shorter than
    /// `remote`, when peeling stalls before every symbol is zero, when an item would be
    /// recovered twice, or when more than `maxItems` items (default `2 * remote.count + 16`)
    /// come out.
    ///
    /// Invariant: a non-nil result has both lists sorted by key, then tag.
    package static func decode(remote: [CodedSymbol], local: ArraySlice<CodedSymbol>,
                               maxItems: Int? = nil) -> SketchDifference? {
        let width = remote.count
        guard local.count >= width else { return nil }
        let itemLimit = max(0, maxItems ?? 2 * width + 16)
        var symbols = remote
        var pending: [Int] = []
        for index in 0..<width {
            symbols[index].subtract(local[local.startIndex + index])
            if symbols[index].count == 1 || symbols[index].count == -1 {
                pending.append(index)
            }
        }
        var recovered: Set<SketchItem> = []
        var remoteOnly: [SketchItem] = []
        var localOnly: [SketchItem] = []
        var targets: [Int] = []
        while let index = pending.popLast() {
            guard let item = symbols[index].pureItem else { continue }
            targets.removeAll(keepingCapacity: true)
            var mapping = SymbolMapping(seed: item.seed, limit: width)
            while let target = mapping.next() {
                targets.append(target)
            }
            guard targets.contains(index) else { continue }
            let direction = symbols[index].count
            guard recovered.count < itemLimit, recovered.insert(item).inserted else { return nil }
            if direction == 1 {
                remoteOnly.append(item)
            } else {
                localOnly.append(item)
            }
            for target in targets {
                symbols[target].mix(key: item.key, tag: item.tag, direction: -direction)
                if symbols[target].count == 1 || symbols[target].count == -1 {
                    pending.append(target)
                }
            }
        }
        guard symbols.allSatisfy(\.isZero) else { return nil }
        return SketchDifference(remoteOnly: remoteOnly.sorted(by: itemPrecedes),
                                localOnly: localOnly.sorted(by: itemPrecedes))
    }

    /// The order of a difference's lists: bytewise by key, then by tag.
    ///
    /// Invariant: a strict total order on items.
    private static func itemPrecedes(_ lhs: SketchItem, _ rhs: SketchItem) -> Bool {
        lhs.key == rhs.key ? lhs.tag < rhs.tag : lhs.key.lexicographicallyPrecedes(rhs.key)
    }
}
