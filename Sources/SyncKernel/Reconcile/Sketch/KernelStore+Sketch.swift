/// The sketch half of the store's reconcile: sketch requests sized to the expected difference,
/// decoding a peer's sketch against the persisted one, and the trie comparison it falls back to.
///
/// Invariants: nothing here reads every row. A sketch request copies symbols from the persisted
/// structure; decoding touches only the symbols sent; answering reads exactly the rows and
/// delete versions of the keys that differ; a trie node at or above the buckets is summed from
/// the persisted buckets, and only a deeper node reads rows, those of its own range. Rows move
/// only for keys that differ, once each per answer. A row about to be shipped that fails
/// `StoredRowCheck` is left out and quarantined once the answer is built (as in the spec half).
extension KernelStore {
    /// Symbols sent when the expected difference is unknown.
    package static let defaultSketchSymbols = 64

    /// How many symbols to send when at most `expectedItems` items differ (nil: unknown), from
    /// the measured symbols a difference needs (`RatelessSketchTests`' decoding table over 500
    /// seeds, sketch items of 32 bits with a 16-bit identity and check: at d = 1,000 a mean of
    /// 1.37 and a 99th percentile of 1.45 per item; at d = 100, 1.46 and 1.78; at d = 50, 1.54
    /// and 2.06; below that a long tail, 99th percentiles of 2.9 to 5.7 per item): 1.6 per item
    /// plus 10 from 50 items, 2 per item plus 9 from 5, 4 per item plus 4 from 2, one symbol for
    /// one item (it is alone in symbol 0), never more than the persisted capacity. Where the
    /// difference is small the extra symbols are cheap beside the rows and a failed decode costs a
    /// round trip (the receiver answers with twice as many of its own), so the small sizes buy
    /// down the tail: over 2,000 seeded differences of 16-byte keys (a quarter of them edits, so
    /// two items a key), 12 symbols fail to decode 0.7 times in 100 for 2 items (6 symbols: 4.3),
    /// 19 fail 1.6 times for 5 (14: 5.0), 35 fail 2.6 times for 13 (30: 6.5) and 69 fail 0.7
    /// times for 30 (64: 1.6); 1.6 per item plus 10 fails 1.8 times in 100 at 100 items and never
    /// at 1,000.
    ///
    /// Never traps, whatever the estimate (it comes from a peer's change counters): an estimate
    /// of at least the capacity asks for the capacity before any arithmetic (every branch wants
    /// at least one symbol per item, so the answer is the same), and below it no product exceeds
    /// 2 × 4,096.
    package static func sketchSymbols(forExpectedItems expectedItems: Int?,
                                      capacity: Int = RatelessSketch.standardCapacity) -> Int {
        guard let estimate = expectedItems else { return defaultSketchSymbols }
        let expectedItems = min(estimate, capacity)
        let wanted = switch expectedItems {
        case ...1: 1
        case 2...4: 4 * expectedItems + 4
        case 5..<50: 2 * expectedItems + 9
        case 50...wideSizingItems: expectedItems + expectedItems * 3 / 5 + 10
        default: expectedItems + expectedItems / 2 + 64
        }
        return min(capacity, wanted)
    }

    /// From how many expected items a sketch takes 1.5 symbols per item (plus 64) instead of 1.6:
    /// the rateless code's overhead narrows as the difference grows (`RatelessSketchTests`'
    /// wide decoding table: at 20,000 and 50,000 items every seeded decode succeeded at 1.5).
    package static let wideSizingItems = 10_000

    /// The most differing items a sketch of the wide capacity (`WideSketch.capacity`, 262,144
    /// symbols) decodes reliably at the sizing above: about 174,000 at 1.5 per item, kept below.
    package static let wideDecodableItems = 160_000

    /// The most differing items a full sketch decodes reliably (4,096 symbols at about 1.4 per item).
    package static let decodableItems = 2_800

    /// The first frame of the sketch exchange for a divergent namespace: a sketch of
    /// `sketchSymbols(forExpectedItems:capacity:)` symbols, or a request for the whole namespace
    /// when it is reconciled whole, or when the expected difference is more than a full sketch
    /// decodes and the requester holds little beside it (then the rows are the cheapest
    /// description). A sketch for at most `SketchRequest.maxResidueItems` expected items asks for
    /// its counts to travel as residues (in a compact frame).
    ///
    /// `wide` says the peer reads sketches past the standard capacity (it announced
    /// `SyncFrame.wideCapacity`): the sketch may then hold up to `SketchRequest.maxSymbols`
    /// symbols, cut to what the receiver's frame and decoding limits admit
    /// (`SketchRequest.admittedPrefix`). Without it this is the earlier build's exchange: at
    /// most 4,096 symbols, and a whole-namespace request when more than `decodableItems` are
    /// expected and at least half of what this store holds. With it, past `wideDecodableItems`
    /// the whole namespace is asked for only when this store holds at most a quarter of the
    /// expected difference (so the peer's rows are nearly all new here), and otherwise the trie
    /// comparison starts at once, so two stores that each hold half of what differs never ship
    /// both whole namespaces, and a stale estimate (change counters since a mark taken before a
    /// large exchange that left one key behind, such as an edit whose two versions share their
    /// 16-bit identity) costs a trie comparison rather than every row. `peerRoot` (the peer's advertised root, when known) equal to the empty set's
    /// sends a single symbol, which the empty peer answers by asking for the whole namespace:
    /// the rows and nothing else.
    ///
    /// `expectedItems` may be as large as `Int.max` (a peer's change counters bound it), so "at
    /// least half" is not computed as `2 * expected >= held`: it holds when `held <= expected`,
    /// and otherwise `held - expected` lies in `1...held` and cannot overflow.
    package func sketchStart(for namespace: String, expectedItems: Int?, wide: Bool = false,
                             peerRoot: [UInt8]? = nil) throws(SyncKernelError) -> SyncFrame.Body {
        let driver = try namespaces.driver(named: namespace)
        let structure = structure(namespace)
        let held = Int(structure.count)
        if driver.granularity == .wholeNamespace {
            return .reconcileRequest(ReconcileRequest(namespace: namespace, buckets: []))
        }
        if wide, held > 0, let peerRoot, peerRoot.count >= SketchRequest.rootPrefixBytes,
           peerRoot == Array(KernelStore.emptyRoot.prefix(peerRoot.count)) {
            return .sketch(SketchRequest(namespace: namespace, root: structure.root, symbols: structure.symbols(prefix: 1)))
        }
        if let expected = expectedItems, expected > (wide ? KernelStore.wideDecodableItems : KernelStore.decodableItems) {
            if wide ? held <= expected / 4 : held <= expected || held - expected <= expected {
                return .reconcileRequest(ReconcileRequest(namespace: namespace, buckets: []))
            }
            if wide { return .rangeCompare(try rangeCompare(driver.name, nodes: PrefixNode.root.children)) }
        }
        let capacity = wide ? SketchRequest.maxSymbols : RatelessSketch.standardCapacity
        let count = KernelStore.sketchSymbols(forExpectedItems: expectedItems, capacity: capacity)
        let residues = expectedItems.map { $0 <= SketchRequest.maxResidueItems } ?? false
        return .sketch(SketchRequest(namespace: namespace, root: structure.root,
                                     symbols: SketchRequest.admittedPrefix(structure.symbols(prefix: count)), countResidues: residues))
    }

    /// The set-hash root of an empty namespace.
    package static let emptyRoot = SetHash().root(count: 0)

    /// Decodes a peer's sketch against this store's and says what to send back; `mark` is this
    /// store's change counter at its last equal roots with the peer (`ChangeMarks.myCounter`).
    ///
    /// Throws `malformedFrame` for a sketch with no symbol or more than the capacity. `wide`
    /// as in `decide(_:wide:)`.
    package func answer(_ request: SketchRequest, mark: UInt64?, wide: Bool = false) throws(SyncKernelError) -> SketchAnswer {
        switch try decide(request, wide: wide) {
        case .differs(let wanted, let offered):
            return .responses(try responses(request.namespace, wanted: wanted, offered: offered, mark: mark))
        case .answer(let answer):
            return answer
        }
    }

    /// The detection half of `answer(_:mark:)`: the differing keys when the sketch decodes, or
    /// the next step when it does not. Reads no row.
    ///
    /// A sketch that decodes to no difference while the sender's root equals this store's means
    /// the two converged since the sender looked (nothing to send); with another root it means
    /// the symbols collided, and the trie comparison takes over, as it does when a sketch at full
    /// capacity does not decode. A sketch may hold up to `SketchRequest.maxSymbols` symbols (the
    /// frame reader's bound too); the larger sketch sent back stays within the standard capacity
    /// unless `wide` (the peer announced `SyncFrame.wideCapacity`), and is cut to what the peer's
    /// limits admit (`SketchRequest.admittedPrefix`).
    package func decide(_ request: SketchRequest, wide: Bool = false) throws(SyncKernelError) -> SketchDecision {
        let driver = try namespaces.driver(named: request.namespace)
        let local = structure(driver.name)
        guard let first = request.symbols.first, request.symbols.count <= SketchRequest.maxSymbols else {
            throw SyncKernelError(.malformedFrame, "a sketch holds 1...\(SketchRequest.maxSymbols) symbols")
        }
        if local.count == 0, first.count > 0 {
            return .answer(.whole(ReconcileRequest(namespace: driver.name, buckets: [])))
        }
        if first.count == 0, local.count > 0 {
            return .answer(.responses(try respond(to: ReconcileRequest(namespace: driver.name, buckets: []))))
        }
        let size = request.symbols.count
        let mine = size <= local.sketch.capacity ? local.sketch.symbols[0..<size] : local.symbols(prefix: size)[...]
        let decoded = SketchDecoder.decode(remote: request.restoringCounts(from: mine), local: mine)
        if let decoded, decoded.remoteOnly.isEmpty, decoded.localOnly.isEmpty,
           request.root == Array(local.root.prefix(SketchRequest.rootPrefixBytes)) {
            return .differs(wanted: [], offered: [])
        }
        guard let difference = decoded, !(difference.remoteOnly.isEmpty && difference.localOnly.isEmpty) else {
            let capacity = wide ? SketchRequest.maxSymbols : local.sketch.capacity
            let next = wide ? min(2 * size, capacity) : 2 * size
            if decoded == nil, next <= capacity {
                let larger = SketchRequest.admittedPrefix(local.symbols(prefix: next))
                if larger.count > size {
                    return .answer(.sketch(SketchRequest(namespace: driver.name, root: local.root, symbols: larger)))
                }
            }
            return .answer(.ranges(try rangeCompare(driver.name, nodes: PrefixNode.root.children)))
        }
        return .differs(wanted: Set(difference.remoteOnly.map { $0.key }).sorted(by: [UInt8].keyPrecedes),
                        offered: Set(difference.localOnly.map { $0.key }).sorted(by: [UInt8].keyPrecedes))
    }

    /// The transfer half of `answer(_:mark:)`: the rows of `offered` this store holds, the delete
    /// versions of every key in either list, and the keys to ship back (`want`), none of them a
    /// key whose row this answer ships.
    ///
    /// An offered key whose row last moved at or before `mark` (this store's change counter at its
    /// last equal roots with the peer, `ChangeMarks.myCounter`) is wanted instead of offered: the
    /// peer held that very version then and has replaced or deleted it since, so the peer's is
    /// newer. Without a mark, or for a row moved since, the row is offered, and the peer ships its
    /// own back only when it is not covered by the offered one (`ApplyOutcome.keysToShipBack`).
    /// Each offered row is read once, with its change counter. An offered row found damaged is
    /// quarantined and wanted instead, so the peer ships back its copy if it holds one.
    package func responses(_ namespace: String, wanted: [[UInt8]], offered: [[UInt8]],
                           mark: UInt64? = nil) throws(SyncKernelError) -> [ReconcileResponse] {
        let driver = try namespaces.driver(named: namespace)
        var want = Set(wanted)
        var rows: [ShippedRow] = []
        var shippedKeys: [[UInt8]] = []
        var damaged: [DamagedRow] = []
        for key in offered {
            guard let stored = try books.record(driver.name, key), stored.leaf != nil else { continue }
            if let mark, let changed = stored.changed, changed <= mark {
                want.insert(key)
                continue
            }
            if let row = try shippedRow(key, stored: stored, driver: driver, damaged: &damaged) {
                rows.append(row)
                shippedKeys.append(key)
            } else {
                want.insert(key)
            }
        }
        var tombstones: [Tombstone] = []
        for key in want.union(offered).sorted(by: [UInt8].keyPrecedes) {
            tombstones += try deleteVersions(key, driver: driver, damaged: &damaged)
        }
        try quarantine(damaged, site: .ship)
        // A key whose row ships here is not wanted too: the peer merges the row and ships its
        // own back exactly when the row does not cover it (`ApplyOutcome.keysToShipBack`), and
        // it ignores a wanted key whose row arrived with it anyway.
        want.subtract(shippedKeys)
        let held = Set(wanted)
        let prefixes = try wantPrefixes(driver.name, keys: want.intersection(held), peerHolds: held,
                                        peerLacks: Set(offered).subtracting(held))
        want.subtract(prefixes.keys)
        let response = ReconcileResponse(namespace: driver.name, rows: rows, tombstones: tombstones,
                                         want: want.sorted(by: [UInt8].keyPrecedes),
                                         wantPrefixes: prefixes.sorted { [UInt8].keyPrecedes($0.key, $1.key) }.map(\.value))
        return response.isEmpty ? [] : response.split()
    }

    /// A trie comparison carrying this store's fingerprints of `nodes`.
    package func rangeCompare(_ namespace: String, nodes: [PrefixNode]) throws(SyncKernelError) -> RangeCompare {
        var pairs: [RangeCompare.NodeFingerprint] = []
        for node in nodes { pairs.append(RangeCompare.NodeFingerprint(node: node, fingerprint: try fingerprint(namespace, node))) }
        return RangeCompare(namespace: namespace, nodes: pairs)
    }

    /// Answers a trie comparison: each listing with the rows the lister lacks or holds
    /// differently and the keys wanted back; each node whose fingerprint differs with its
    /// children's fingerprints (the next comparison) or, when small or deepest, with a listing.
    /// The next comparison comes in parts a receiver of the same build reads (`RangeCompare.split`),
    /// none when every node agreed.
    ///
    /// Throws `malformedFrame` for more than `maxCompareNodes` nodes or listed leaves in one
    /// comparison, so a hostile peer cannot make one frame cost unbounded work.
    package func answer(_ compare: RangeCompare) throws(SyncKernelError) -> (responses: [ReconcileResponse], next: [RangeCompare]) {
        let driver = try namespaces.driver(named: compare.namespace)
        guard compare.nodes.count <= KernelStore.maxCompareNodes else {
            throw SyncKernelError(.malformedFrame, "more than \(KernelStore.maxCompareNodes) trie nodes")
        }
        var wanted: Set<[UInt8]> = []
        var offered: Set<[UInt8]> = []
        for listing in compare.listings {
            let mine = try StructureItems.items(driver, books: books, in: listing.range)
            let theirs = Dictionary(listing.leaves.map { ($0.key, $0.hash) }, uniquingKeysWith: { first, _ in first })
            let held = Dictionary(mine.map { ($0.key, $0.hash) }, uniquingKeysWith: { first, _ in first })
            for leaf in listing.leaves where held[leaf.key] != leaf.hash { wanted.insert(leaf.key) }
            for leaf in mine where theirs[leaf.key] != leaf.hash { offered.insert(leaf.key) }
        }
        let responses = try responses(driver.name, wanted: wanted.sorted(by: [UInt8].keyPrecedes),
                                      offered: offered.sorted(by: [UInt8].keyPrecedes))
        var nodes: [RangeCompare.NodeFingerprint] = []
        var listings: [RangeListing] = []
        for pair in compare.nodes {
            let mine = try fingerprint(driver.name, pair.node)
            guard mine != pair.fingerprint else { continue }
            if mine.count <= Int64(RangeCompare.listThreshold) || pair.node.depth >= PrefixNode.maxDepth {
                listings.append(RangeListing(range: pair.node.range, leaves: try StructureItems.items(driver, books: books, in: pair.node.range)))
            } else {
                for child in pair.node.children {
                    nodes.append(RangeCompare.NodeFingerprint(node: child, fingerprint: try fingerprint(driver.name, child)))
                }
            }
        }
        let next = nodes.isEmpty && listings.isEmpty ? [] : RangeCompare(namespace: driver.name, nodes: nodes, listings: listings).split()
        return (responses, next)
    }

    /// The most nodes one trie comparison may name.
    package static let maxCompareNodes = 16 * PrefixNode.bucketCount

    /// This store's fingerprint of a trie node: summed from the persisted buckets down to their
    /// depth, from the rows of the node's range below it.
    func fingerprint(_ namespace: String, _ node: PrefixNode) throws(SyncKernelError) -> RangeFingerprint {
        if node.depth <= PrefixNode.bucketDepth {
            return structure(namespace).fingerprint(ofBuckets: node.buckets)
        }
        return try StructureItems.items(try namespaces.driver(named: namespace), books: books, in: node.range)
            .reduce(.empty) { $0.adding(RangeFingerprint(itemHash: $1.itemHash)) }
    }
}
