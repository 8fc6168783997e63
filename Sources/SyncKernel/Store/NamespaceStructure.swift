/// One namespace's persisted reconciliation structure: the set hash behind its advertised root,
/// the first coded symbols of its rateless sketch (the standard 4,096 and the wide tier up to
/// 262,144), and the fingerprints of its 4,096 key-prefix buckets, all over the namespace's
/// (key, leaf) items.
///
/// Invariants: every field is a function of the current item set alone (history-independent),
/// so a store rebuilt from its rows holds an equal structure; `changes` is the exception, a
/// monotone count of item additions and removals that peers use to size a sketch request.
/// `move` keeps the structure current in O(log capacity) work per row write and records which
/// parts changed, so only those are written back (inside the write's own transaction). No
/// arithmetic here traps: the item count starts within `0...maxCount` (checked when a persisted
/// header is loaded) and moves by one per row write, the change counter, set hash, symbols and
/// bucket fingerprints wrap by design, and an item whose key is longer than a sketch carries
/// (only from a damaged store: every row written was inspected) is refused with
/// `corruptBookkeeping`. The wide tier is persisted as blocks (`sk_wide`) plus a journal of the
/// item moves since they were written (`sk_journal`, at most `journalLimit` entries): a write
/// appends its moves to the journal (a few bytes a move), and once the journal would pass the
/// limit (or a transaction moves more items than that) the blocks changed since are written and
/// the journal emptied, in the same transaction; loading replays the journal over the blocks.
struct NamespaceStructure: Sendable, Equatable {
    /// The layout of the persisted structure; a store holding another is rebuilt once at open
    /// (from its stored leaves, streamed: `KernelStore.rebuiltStructure`). Format 2 holds sketch
    /// items of 32-bit tags (`SketchItem`) and symbols of 4-byte tag sums; format 1 held 64-bit
    /// ones, which no longer parse and would map items to other symbols.
    /// Format 3 adds the wide tier (`WideSketch`, blocks and journal); a format-2 store is
    /// rebuilt once at open.
    static let format: Int64 = 3

    /// The most wide-tier moves the journal holds before the changed blocks are written.
    static let journalLimit = 16_384

    /// The largest item count a persisted header may claim: 2^48, more rows than a SQLite file
    /// can hold (its size limit is about 2^48 bytes and a row takes more than one byte). A
    /// header claiming more, or a negative count, is damaged (`corruptBookkeeping` at load).
    /// From a count within it, `count += direction` would need more than 2^62 row writes in one
    /// process to overflow, so it never traps.
    static let maxCount: Int64 = 1 << 48

    /// The items' homomorphic hash.
    private(set) var setHash = SetHash()
    /// How many items (synced rows) the namespace holds.
    private(set) var count: Int64 = 0
    /// Item additions plus removals since the structure was first built.
    private(set) var changes: UInt64 = 0
    /// The first `RatelessSketch.standardCapacity` coded symbols.
    private(set) var sketch = RatelessSketch()
    /// The coded symbols past the standard capacity.
    private(set) var wide = WideSketch()
    /// One fingerprint per depth-3 key-prefix bucket.
    private(set) var buckets = [RangeFingerprint](repeating: .empty, count: PrefixNode.bucketCount)

    /// Wide blocks changed since they were last written, one bit a block.
    private var dirtyWide = [UInt64](repeating: 0, count: (WideSketch.blockCount + 63) / 64)
    /// Entries the persisted journal holds.
    private var journaled = 0
    /// Wide moves since the last `persist`, while they fit in the journal.
    private var pendingJournal: [WideJournalEntry] = []
    /// Whether the next `persist` writes the changed wide blocks and empties the journal.
    private var foldWide = false

    /// Symbols changed since the last `persist`.
    private(set) var dirtySymbols: Set<Int> = []
    /// Buckets changed since the last `persist`.
    private(set) var dirtyBuckets: Set<Int> = []
    /// Whether the set hash, count or change counter changed since the last `persist`.
    private(set) var metaDirty = false

    /// An empty structure.
    init() {}

    /// The root the fast digest advertises.
    var root: [UInt8] { setHash.root(count: count) }

    /// Replaces the item (key, `old`) by (key, `new`); nil means no item (no row, or a
    /// device-derived one). Returns whether the item set changed.
    ///
    /// Throws `corruptBookkeeping`, changing nothing, for a key longer than
    /// `SketchItem.maxKeyBytes` (a sketch item cannot carry it; every row a write or merge
    /// stores was inspected, so only a damaged store holds one).
    @discardableResult
    mutating func move(key: [UInt8], from old: [UInt8]?, to new: [UInt8]?) throws(SyncKernelError) -> Bool {
        guard old != new else { return false }
        guard key.count <= SketchItem.maxKeyBytes else {
            throw SyncKernelError(.corruptBookkeeping, "a stored row key longer than \(SketchItem.maxKeyBytes) bytes")
        }
        if let old { apply(Leaf(key: key, hash: old), direction: -1) }
        if let new { apply(Leaf(key: key, hash: new), direction: 1) }
        return true
    }

    private mutating func apply(_ leaf: Leaf, direction: Int64) {
        let itemHash = leaf.itemHash
        setHash.apply(itemHash: itemHash, direction: direction)
        // Cannot overflow: the count starts within 0...maxCount and moves by one per row write.
        count += direction
        changes &+= 1
        metaDirty = true
        let item = SketchItem(key: leaf.key, itemHash: itemHash)
        sketch.apply(item, direction: direction) { dirtySymbols.insert($0) }
        wide.apply(item, direction: direction) { dirtyWide[$0 >> 6] |= 1 << UInt64($0 & 63) }
        if !foldWide {
            if journaled + pendingJournal.count < NamespaceStructure.journalLimit {
                pendingJournal.append(WideJournalEntry(item: item, direction: direction))
            } else {
                foldWide = true
                pendingJournal.removeAll()
            }
        }
        let bucket = PrefixNode.bucket(of: leaf.key)
        let contribution = RangeFingerprint(itemHash: itemHash)
        buckets[bucket] = direction > 0 ? buckets[bucket].adding(contribution) : buckets[bucket].subtracting(contribution)
        dirtyBuckets.insert(bucket)
    }

    /// How many symbols the sketch holds in all (standard and wide).
    var symbolCapacity: Int { WideSketch.capacity }

    /// The first `count` symbols (clamped to `0...symbolCapacity`): the standard sketch's,
    /// then the wide tier's.
    func symbols(prefix count: Int) -> [CodedSymbol] {
        let wanted = max(0, min(count, symbolCapacity))
        var symbols = Array(sketch.symbols.prefix(wanted))
        if wanted > sketch.capacity {
            symbols.reserveCapacity(wanted)
            wide.append(sketch.capacity..<wanted, to: &symbols)
        }
        return symbols
    }

    /// The fingerprint of a node no deeper than the buckets, summed from them.
    func fingerprint(ofBuckets range: Range<Int>) -> RangeFingerprint {
        buckets[range].reduce(.empty) { $0.adding($1) }
    }

    /// Writes the changed parts into `books` (inside the caller's transaction) and forgets them.
    mutating func persist(_ namespace: String, into books: Bookkeeping) throws(SyncKernelError) {
        if metaDirty {
            try books.putStructure(namespace, format: NamespaceStructure.format, count: count, changes: changes,
                                   setHash: setHash.encoded())
        }
        for index in dirtySymbols.sorted() {
            let symbol = sketch.symbols[index]
            try books.putSymbol(namespace, index: index, symbol.isZero ? nil : symbol.encoded())
        }
        for index in dirtyBuckets.sorted() {
            let bucket = buckets[index]
            try books.putBucket(namespace, index: index, bucket.isEmpty ? nil : bucket.encoded())
        }
        if foldWide {
            for word in dirtyWide.indices where dirtyWide[word] != 0 {
                for bit in 0..<64 where dirtyWide[word] & (1 << UInt64(bit)) != 0 {
                    let block = word * 64 + bit
                    guard block < WideSketch.blockCount else { continue }
                    try books.putWideBlock(namespace, index: block, wide.blockIsZero(block) ? nil : SketchCodec.encode(wide.block(block)))
                }
            }
            try books.clearWideJournal(namespace)
            dirtyWide = [UInt64](repeating: 0, count: dirtyWide.count)
            journaled = 0
        } else {
            for entry in pendingJournal {
                try books.putWideJournalEntry(namespace, sequence: journaled, entry.encoded())
                journaled += 1
            }
        }
        pendingJournal.removeAll()
        foldWide = false
        dirtySymbols.removeAll()
        dirtyBuckets.removeAll()
        metaDirty = false
    }

    /// Loads a namespace's persisted structure; nil when none is stored or it has another format.
    static func load(_ namespace: String, from books: Bookkeeping) throws(SyncKernelError) -> NamespaceStructure? {
        guard let meta = try books.structure(namespace), meta.format == format else { return nil }
        guard meta.count >= 0, meta.count <= maxCount else {
            throw SyncKernelError(.corruptBookkeeping, "an item count out of range in \(namespace)")
        }
        var structure = NamespaceStructure()
        structure.setHash = try SetHash(decoding: meta.setHash)
        structure.count = meta.count
        structure.changes = meta.changes
        for (index, bytes) in try books.symbols(namespace) {
            guard index >= 0, index < structure.sketch.capacity else {
                throw SyncKernelError(.corruptBookkeeping, "a sketch symbol out of range in \(namespace)")
            }
            structure.sketch.setSymbol(try CodedSymbol(decoding: bytes), at: index)
        }
        for (index, bytes) in try books.buckets(namespace) {
            guard index >= 0, index < PrefixNode.bucketCount else {
                throw SyncKernelError(.corruptBookkeeping, "a bucket out of range in \(namespace)")
            }
            structure.buckets[index] = try RangeFingerprint(decoding: bytes, failure: SyncKernelError(.corruptBookkeeping, "a bucket fingerprint"))
        }
        for (index, bytes) in try books.wideBlocks(namespace) {
            guard index >= 0, index < WideSketch.blockCount,
                  let symbols = try? SketchCodec.decode(bytes, maxSymbols: WideSketch.blockSymbols),
                  symbols.count == WideSketch.blockSymbols else {
                throw SyncKernelError(.corruptBookkeeping, "a wide sketch block out of range or malformed in \(namespace)")
            }
            structure.wide.setBlock(symbols, at: index)
        }
        let journal = try books.wideJournal(namespace)
        guard journal.count <= journalLimit, journal.enumerated().allSatisfy({ $0.offset == $0.element.sequence }) else {
            throw SyncKernelError(.corruptBookkeeping, "a wide sketch journal out of sequence in \(namespace)")
        }
        for (_, bytes) in journal {
            let entry = try WideJournalEntry(decoding: bytes)
            structure.wide.apply(entry.item, direction: entry.direction) { structure.dirtyWide[$0 >> 6] |= 1 << UInt64($0 & 63) }
        }
        structure.journaled = journal.count
        return structure
    }

    /// The structure of `leaves` built from scratch (the audit), every part marked changed so
    /// `persist` writes it whole, header included.
    /// Throws `corruptBookkeeping` for a leaf whose key `move` refuses.
    static func building(_ leaves: some Sequence<Leaf>, changes: UInt64 = 0) throws(SyncKernelError) -> NamespaceStructure {
        try building(changes: changes) { add throws(SyncKernelError) in
            for leaf in leaves { try add(leaf) }
        }
    }

    /// The structure of the items `stream` hands to `add` one at a time (the one-time rebuild,
    /// which streams them from the store so no list of every item is held), every part marked
    /// changed so `persist` writes it whole, header included.
    /// Throws `corruptBookkeeping` for a leaf whose key `move` refuses, and whatever `stream` throws.
    static func building(changes: UInt64 = 0,
                         _ stream: (_ add: (Leaf) throws(SyncKernelError) -> Void) throws(SyncKernelError) -> Void)
        throws(SyncKernelError) -> NamespaceStructure {
        var structure = NamespaceStructure()
        try stream { leaf throws(SyncKernelError) in try structure.move(key: leaf.key, from: nil, to: leaf.hash) }
        structure.changes = changes
        structure.metaDirty = true
        structure.foldWide = true
        structure.pendingJournal = []
        return structure
    }

    /// Whether the items' parts (everything but `changes` and the dirty marks) equal `other`'s.
    func holdsSameItems(as other: NamespaceStructure) -> Bool {
        setHash == other.setHash && count == other.count && sketch == other.sketch && buckets == other.buckets && wide == other.wide
    }
}
