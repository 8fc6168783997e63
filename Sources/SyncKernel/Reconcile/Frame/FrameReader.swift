/// Reads a `sync_delta` frame from its bytes straight into `SyncFrame`, with no `CBORValue`
/// tree in between: the bytes are checked whole by `CBORReader`, then each field the frame's
/// kind needs is read from a `CBORCursor` into its typed value, and a shipped row's encoding is
/// copied out of the frame as it stands.
///
/// Invariants: accepts exactly the frames the tree decoder accepted and refuses every other input
/// with the error it gave, checking in the same order (fields in the order the typed values
/// need them, not the order they are written in), with one addition: a frame whose typed value
/// would keep more than `DecodeBudget(inputBytes:)` allows is refused with `limitExceeded`
/// before it is built, as is one larger than `SyncFrame.maxFrameBytes`; and, given an expected
/// account, a frame naming another is refused with `foreignAccount` right after its `type` and
/// `account` are read, before its schema, kind and body. Unknown keys are skipped unread beyond
/// the check every byte gets. A map without `type` is read as a compact frame (`FrameKey`):
/// its kind code and account tag first (the tag checked against the expected account's, then
/// `foreignAccount` as above), then the same fields under their compact names, checked alike; a
/// map with `type` is read exactly as before, whatever one-letter keys it also holds.
struct FrameReader {
    /// The keys a frame may carry, in no particular order.
    private typealias Key = FrameKey

    private var budget: DecodeBudget
    /// A cursor at each known key's value, by `Key.rawValue`.
    private var fields: [CBORCursor?]
    /// Whether the frame is compact (its keys are the compact names).
    private let compact: Bool
    /// The account the frame must name, when the caller knows it.
    private let expectedAccount: [UInt8]?
    /// The device that sent the frame, when the caller knows it (`SyncFrame.sender`).
    private let sender: DeviceID?
    /// The namespace names of the reader's schema, when the caller knows them
    /// (`SyncFrame.positions`): a compact push or push_ack may name its namespace by position.
    private let positions: NamespacePositions?
    /// The device reading the frame, when the caller knows it (`SyncFrame.receiver`): a push's
    /// receiver reference reads as it.
    private let receiver: DeviceID?
    /// The sender's current epoch dimension as the reader holds it (`SyncFrame.senderEpoch`): a
    /// push's epoch reference reads as it, or as the frame's own announcement's when it has one.
    private var senderEpoch: DeviceID?
    /// Whether a compact frame may leave its account tag out (the reader's transport proved the
    /// account): it then reads as the expected account.
    private let impliedAccount: Bool

    /// Decodes one frame, charging `budget`; with `account`, refuses a frame naming another one
    /// before reading its body; with `sender`, resolves a device table's sender reference
    /// (`DeviceTable.senderIndex`) to it, which is refused without one; with `positions`, reads
    /// a compact push's or push_ack's namespace position under their schema; with `receiver`,
    /// resolves a push's receiver reference (`DeviceTable.receiverIndex`) to it.
    static func frame(decoding bytes: [UInt8], account: [UInt8]? = nil, sender: DeviceID? = nil,
                      positions: NamespacePositions? = nil, receiver: DeviceID? = nil, senderEpoch: DeviceID? = nil,
                      impliedAccount: Bool = false, budget: inout DecodeBudget) throws(SyncKernelError) -> SyncFrame {
        guard bytes.count <= SyncFrame.maxFrameBytes else { throw SyncKernelError(.limitExceeded, "frame too large") }
        var cursor = try CBORReader.cursor(over: bytes, limits: .frame)
        try budget.chargeArray(of: CBORCursor?.self, count: Key.allCases.count)
        var fields = [CBORCursor?](repeating: nil, count: Key.allCases.count)
        var compactFields: [CBORCursor?] = []
        try cursor.forEachTextKey { name, value throws(SyncKernelError) in
            if let key = Key.allCases.first(where: { value.text(at: name, is: $0.name) }) { fields[key.rawValue] = value }
            if let key = Key.allCases.first(where: { $0.compactName.map { value.text(at: name, is: $0) } ?? false }) {
                if compactFields.isEmpty { compactFields = [CBORCursor?](repeating: nil, count: Key.allCases.count) }
                compactFields[key.rawValue] = value
            }
        }
        let compact = fields[Key.type.rawValue] == nil && !compactFields.isEmpty
        if compact { try budget.chargeArray(of: CBORCursor?.self, count: Key.allCases.count) }
        var reader = FrameReader(budget: budget, fields: compact ? compactFields : fields, compact: compact, expectedAccount: account,
                                 sender: sender, positions: positions, receiver: receiver, senderEpoch: senderEpoch,
                                 impliedAccount: impliedAccount)
        defer { budget = reader.budget }
        return try reader.frame()
    }

    private mutating func frame() throws(SyncKernelError) -> SyncFrame {
        let accountBytes: [UInt8]
        var omitsAccount = false
        let kind: String
        let fingerprint: SchemaFingerprint
        if compact {
            var kindField = try required(.kind)
            let code = try kindField.readUInt()
            if field(.account) == nil, impliedAccount, let expectedAccount {
                accountBytes = expectedAccount
                omitsAccount = true
            } else {
                var account = try required(.account)
                let tag = try account.readBytes(count: SyncFrame.accountTagBytes, budget: &budget)
                if let expectedAccount, tag != SyncFrame.accountTag(of: expectedAccount) { throw SyncKernelError(.foreignAccount) }
                accountBytes = expectedAccount ?? tag
            }
            var schema = try required(.schema)
            fingerprint = SchemaFingerprint(value: try schema.readUInt())
            guard let named = SyncFrame.Body.kind(code: code) else { throw SyncKernelError(.unknownFrameKind) }
            kind = named
        } else {
            var type = try required(.type)
            guard try type.readText(budget: &budget) == SyncFrame.payloadType else { throw SyncKernelError(.unsupportedPayload) }
            var account = try required(.account)
            accountBytes = try account.readBytes(count: 32, budget: &budget)
            if let expectedAccount, accountBytes != expectedAccount { throw SyncKernelError(.foreignAccount) }
            var schema = try required(.schema)
            fingerprint = SchemaFingerprint(value: try schema.readUInt())
            var kindField = try required(.kind)
            kind = try kindField.readText(budget: &budget)
        }
        var capabilities: [String] = []
        if var caps = field(.caps) {
            let count = try caps.readArrayHeader()
            try budget.chargeArray(of: String.self, count: min(count, SyncFrame.maxCapabilities))
            capabilities.reserveCapacity(min(count, SyncFrame.maxCapabilities))
            for _ in 0..<count {
                guard capabilities.count < SyncFrame.maxCapabilities else { throw SyncKernelError(.malformedFrame, "too many capabilities") }
                capabilities.append(try caps.readText(budget: &budget))
            }
        }
        var announcement: EpochAnnouncement?
        if var item = field(.epoch) {
            let announced = try EpochAnnouncement(reading: &item, budget: &budget)
            if let sender { senderEpoch = announced.dimension(of: sender) }
            announcement = announced
        }
        var echo: [UInt8]?
        if var item = field(.epochEcho) {
            let bytes = try item.readBytes(budget: &budget)
            guard bytes.isEmpty || bytes.count == EpochAnnouncement.echoBytes else {
                throw SyncKernelError(.malformedFrame, "an epoch echo of another length")
            }
            echo = bytes
        }
        var compactVectors = false
        let body: SyncFrame.Body
        switch kind {
        case "state_digest":
            body = try stateDigest()
        case "reconcile_req":
            body = try reconcileRequest()
        case "reconcile_resp":
            let (response, table) = try reconcileResponse(schema: fingerprint)
            compactVectors = table
            body = .reconcileResponse(response)
        case "heartbeat":
            body = .heartbeat
        case "sketch_req":
            body = try sketch()
        case "range_req":
            body = try rangeCompare()
        case "push":
            let (response, _) = try reconcileResponse(schema: fingerprint, push: true)
            guard response.listings.isEmpty, response.want.isEmpty, response.wantPrefixes.isEmpty, !response.isFinal else {
                throw SyncKernelError(.malformedFrame, "a push carries rows and delete versions only")
            }
            compactVectors = true
            var root = try required(.root)
            let bytes = try root.readBytes(count: StateDigest.setHashRootBytes, budget: &budget)
            var changes = try required(.changes)
            body = .push(response, root: bytes, change: try changes.readUInt())
        case "push_ack":
            let name = try namespaceName(schema: fingerprint, positional: true)
            var answers = try required(.answers)
            let pushChange = try answers.readUInt()
            let answer: PushAnswer
            if var root = field(.root) {
                answer = .differs(pushChange: pushChange, root: try root.readBytes(count: StateDigest.setHashRootBytes, budget: &budget))
            } else {
                answer = .matched(pushChange: pushChange)
            }
            var changes = try required(.changes)
            let change = try changes.readUInt()
            var following = false
            if var item = field(.probe) { following = try item.readBool() }
            body = .pushAck(namespace: name, answer: answer, change: change, following: following)
        default:
            throw SyncKernelError(.unknownFrameKind)
        }
        return SyncFrame(account: accountBytes, schema: fingerprint, body: body, capabilities: capabilities, compactVectors: compactVectors,
                         compactHeader: compact, sender: sender, positions: positions, receiver: receiver, epochAnnouncement: announcement,
                         epochEcho: echo, senderEpoch: senderEpoch, omitsAccount: omitsAccount)
    }

    private mutating func stateDigest() throws(SyncKernelError) -> SyncFrame.Body {
        var changes: [UInt64] = []
        if var items = field(.changes) {
            let count = try items.readArrayHeader()
            try budget.chargeArray(of: UInt64.self, count: count)
            changes.reserveCapacity(count)
            for _ in 0..<count { changes.append(try items.readUInt()) }
        }
        var digest = try required(.digest)
        let digestBytes = try digest.readBytes(budget: &budget)
        var probe = false
        if var item = field(.probe) { probe = try item.readBool() }
        return .stateDigest(digest: digestBytes, probe: probe, changes: changes)
    }

    /// The frame's `ns`: a name, or in a compact `push` or `push_ack` (`positional`) also a
    /// position among the reader's `NamespacePositions` for `schema` (refused without them or
    /// under another schema).
    private mutating func namespaceName(schema: SchemaFingerprint, positional: Bool) throws(SyncKernelError) -> String {
        var namespace = try required(.ns)
        if positional, compact, !namespace.isAtText {
            let position = try namespace.readUInt()
            guard let positions else { throw SyncKernelError(.malformedFrame, "a namespace position without the schema's names") }
            return try positions.namespace(at: position, in: schema)
        }
        return try namespace.readText(budget: &budget)
    }

    private mutating func reconcileRequest() throws(SyncKernelError) -> SyncFrame.Body {
        var bucketsField = try required(.buckets)
        let buckets = try readBuckets(&bucketsField)
        var keys: [[UInt8]] = []
        if var items = field(.keys) { keys = try readByteStrings(&items) }
        var namespace = try required(.ns)
        return .reconcileRequest(ReconcileRequest(namespace: try namespace.readText(budget: &budget), buckets: buckets, keys: keys))
    }

    /// A `reconcile_resp`'s fields, or a `push`'s (`push`: read against a device table, an
    /// absent one empty, and its namespace possibly by position), and whether it held a table.
    private mutating func reconcileResponse(schema: SchemaFingerprint, push: Bool = false) throws(SyncKernelError) -> (ReconcileResponse, Bool) {
        var table: DeviceTable?
        if var devices = field(.devices) {
            table = try DeviceTable(reading: &devices, sender: sender, receiver: push ? receiver : nil, senderEpoch: push ? senderEpoch : nil,
                                    readsEpoch: push, budget: &budget)
        }
        if push, table == nil { table = DeviceTable(emptyWith: sender, receiver: receiver, senderEpoch: senderEpoch, readsEpoch: true) }
        var rowsField = try required(.rows)
        let count = try rowsField.readArrayHeader()
        try budget.chargeArray(of: ShippedRow.self, count: count)
        var rows: [ShippedRow] = []
        rows.reserveCapacity(count)
        for _ in 0..<count { rows.append(try readShippedRow(&rowsField, table: table, depth: 0, allowsDelta: push)) }
        var tombstones: [Tombstone] = []
        if var items = field(.tombstones) {
            let count = try items.readArrayHeader()
            try budget.chargeArray(of: Tombstone.self, count: count)
            tombstones.reserveCapacity(count)
            for _ in 0..<count {
                let fields = try items.readArrayHeader()
                guard fields >= 2 else { throw SyncKernelError(.malformedFrame, "tombstone needs 2 fields") }
                let key = try items.readBytes(budget: &budget)
                tombstones.append(Tombstone(key: key, vector: try readVector(&items, table: table)))
                for _ in 2..<fields { try items.skip() }
            }
        }
        var want: [[UInt8]] = []
        if var items = field(.want) { want = try readByteStrings(&items) }
        var prefixes: [[UInt8]] = []
        if var items = field(.wantPrefixes) {
            prefixes = try readByteStrings(&items)
            guard prefixes.allSatisfy({ !$0.isEmpty }) else { throw SyncKernelError(.malformedFrame, "an empty wanted prefix") }
        }
        let name = try namespaceName(schema: schema, positional: push)
        let listings = try readListings()
        var isFinal = false
        if var item = field(.final) { isFinal = try item.readBool() }
        var remaining = 0
        if var item = field(.more) {
            let count = try item.readUInt()
            guard count > 0, count <= UInt64(ReconcileResponse.maxRemaining) else {
                throw SyncKernelError(.malformedFrame, "a count of parts to follow that is zero or too large")
            }
            remaining = Int(count)
        }
        return (ReconcileResponse(namespace: name, rows: rows, tombstones: tombstones, listings: listings, want: want,
                                  wantPrefixes: prefixes, isFinal: isFinal, remaining: remaining),
                table != nil)
    }

    private mutating func sketch() throws(SyncKernelError) -> SyncFrame.Body {
        var symbolsField = try required(.symbols)
        let range = try symbolsField.readByteRange()
        let (symbols, residues) = compact
            ? try SketchCodec.decodeCompact(symbolsField.input, in: range, maxSymbols: SketchRequest.maxSymbols, budget: &budget)
            : (try SketchCodec.decode(symbolsField.input, in: range, maxSymbols: SketchRequest.maxSymbols, budget: &budget), false)
        var namespace = try required(.ns)
        let name = try namespace.readText(budget: &budget)
        var root = try required(.root)
        return .sketch(SketchRequest(namespace: name, root: try root.readBytes(count: SketchRequest.rootPrefixBytes, budget: &budget),
                                     symbols: symbols, countResidues: residues))
    }

    private mutating func rangeCompare() throws(SyncKernelError) -> SyncFrame.Body {
        var items = try required(.nodes)
        let count = try items.readArrayHeader()
        try budget.chargeArray(of: RangeCompare.NodeFingerprint.self, count: count)
        var nodes: [RangeCompare.NodeFingerprint] = []
        nodes.reserveCapacity(count)
        for _ in 0..<count {
            let fields = try items.readArrayHeader()
            guard fields >= 2, let node = PrefixNode(nibbles: try items.readBytes(budget: &budget)) else {
                throw SyncKernelError(.malformedFrame, "a trie node needs valid nibbles and a fingerprint")
            }
            let fingerprint = try RangeFingerprint(decoding: items.input[try items.readByteRange()],
                                                   failure: SyncKernelError(.malformedFrame, "a fingerprint is 24 bytes"))
            nodes.append(RangeCompare.NodeFingerprint(node: node, fingerprint: fingerprint))
            for _ in 2..<fields { try items.skip() }
        }
        var namespace = try required(.ns)
        let name = try namespace.readText(budget: &budget)
        return .rangeCompare(RangeCompare(namespace: name, nodes: nodes, listings: try readListings()))
    }

    /// A cursor at the value of `key`, or nil when the frame has none.
    private func field(_ key: Key) -> CBORCursor? {
        fields[key.rawValue]
    }

    /// A cursor at the value of `key`, or `missingField` naming it.
    private func required(_ key: Key) throws(SyncKernelError) -> CBORCursor {
        guard let cursor = fields[key.rawValue] else {
            throw SyncKernelError(.missingField, key.text(compact: compact))
        }
        return cursor
    }

    /// An array of byte strings (`keys`, `want`, `wantPrefixes`).
    private mutating func readByteStrings(_ cursor: inout CBORCursor) throws(SyncKernelError) -> [[UInt8]] {
        let count = try cursor.readArrayHeader()
        try budget.chargeArray(of: [UInt8].self, count: count)
        var out: [[UInt8]] = []
        out.reserveCapacity(count)
        for _ in 0..<count { out.append(try cursor.readBytes(budget: &budget)) }
        return out
    }

    /// A vector by device key, or by position in `table` when there is one.
    private mutating func readVector(_ cursor: inout CBORCursor, table: DeviceTable?, allowsOwn: Bool = false) throws(SyncKernelError)
        -> VersionVector {
        if let table { return try table.readVector(&cursor, allowsOwn: allowsOwn, budget: &budget) }
        return try VersionVector(reading: &cursor, budget: &budget)
    }

    /// One shipped row; siblings nest one level only. Without a device table it is the spec's
    /// map, whose keys are read in the order `v`, `c`, `s`, `w`, `r`, whatever order they are
    /// written in (`w`, the writer's 32-byte device key, is optional); against a table it is the
    /// positional form `[row, vector, writer, content, siblings]` (`SyncFrame.encode(_:table:into:)`),
    /// where a missing or null field is absent and fields past the fifth are skipped, or the map
    /// an earlier build wrote against a table (its vectors and writer by position: a snapshot
    /// page exported by a `sketch1` build still imports).
    private mutating func readShippedRow(_ cursor: inout CBORCursor, table: DeviceTable?, depth: Int,
                                         allowsDelta: Bool = false) throws(SyncKernelError) -> ShippedRow {
        if let table, !cursor.isAtMap { return try readPositionalRow(&cursor, table: table, depth: depth, allowsDelta: allowsDelta) }
        var row: CBORCursor?
        var vector: CBORCursor?
        var content: CBORCursor?
        var siblings: CBORCursor?
        var writer: CBORCursor?
        try cursor.forEachTextKey { name, value in
            if value.text(at: name, is: "r") { row = value }
            if value.text(at: name, is: "v") { vector = value }
            if value.text(at: name, is: "c") { content = value }
            if value.text(at: name, is: "s") { siblings = value }
            if value.text(at: name, is: "w") { writer = value }
        }
        var vectorValue: VersionVector?
        if var vector { vectorValue = try readVector(&vector, table: table, allowsOwn: true) }
        var contentValue: VersionVector?
        if var content { contentValue = try readVector(&content, table: table, allowsOwn: true) }
        var siblingRows: [ShippedRow] = []
        if var siblings { siblingRows = try readSiblings(&siblings, table: table, depth: depth) }
        var writerValue: DeviceID?
        if var writer {
            if let table {
                writerValue = try table.readWriter(&writer)
            } else {
                writerValue = try DeviceID(publicKey: try writer.readBytes(count: 32, budget: &budget))
            }
        }
        guard var row else { throw SyncKernelError(.missingField, "r") }
        return ShippedRow(row: try row.readEncoded(budget: &budget), vector: vectorValue, contentVector: contentValue, siblings: siblingRows,
                          writer: writerValue)
    }

    /// A shipped row in the positional form, against `table`; with `allowsDelta` (a push's rows),
    /// a delta row (`DeltaVector`), which holds no content vector and no siblings.
    private mutating func readPositionalRow(_ cursor: inout CBORCursor, table: DeviceTable, depth: Int,
                                            allowsDelta: Bool) throws(SyncKernelError) -> ShippedRow {
        let fields = try cursor.readArrayHeader()
        guard fields >= 1 else { throw SyncKernelError(.missingField, "r") }
        let row = try cursor.readEncoded(budget: &budget)
        var vector: VersionVector?
        var check: [UInt8]?
        if fields > 1, !cursor.skipNull() {
            (vector, check) = try table.readRowVector(&cursor, allowsDelta: allowsDelta && depth == 0, budget: &budget)
        }
        if check != nil {
            guard fields <= 3 else { throw SyncKernelError(.malformedFrame, "a delta row with a content vector or siblings") }
            var writer: DeviceID?
            if fields > 2, !cursor.skipNull() { writer = try table.readWriter(&cursor) }
            return ShippedRow(row: row, vector: vector, writer: writer, base: check)
        }
        var writer: DeviceID?
        if fields > 2, !cursor.skipNull() { writer = try table.readWriter(&cursor) }
        var content: VersionVector?
        if fields > 3, !cursor.skipNull() { content = try table.readVector(&cursor, allowsOwn: true, budget: &budget) }
        var siblings: [ShippedRow] = []
        if fields > 4, !cursor.skipNull() { siblings = try readSiblings(&cursor, table: table, depth: depth) }
        if fields > 5 { for _ in 5..<fields { try cursor.skip() } }
        return ShippedRow(row: row, vector: vector, contentVector: content, siblings: siblings, writer: writer)
    }

    /// A row's siblings: an array of shipped rows one level down; siblings of a sibling are refused.
    private mutating func readSiblings(_ cursor: inout CBORCursor, table: DeviceTable?, depth: Int) throws(SyncKernelError) -> [ShippedRow] {
        guard depth == 0 else { throw SyncKernelError(.malformedFrame, "siblings of a sibling") }
        let count = try cursor.readArrayHeader()
        try budget.chargeArray(of: ShippedRow.self, count: count)
        var rows: [ShippedRow] = []
        rows.reserveCapacity(count)
        for _ in 0..<count { rows.append(try readShippedRow(&cursor, table: table, depth: 1)) }
        return rows
    }

    /// The `listings` field, or none; each listing refuses leaves out of order or outside its range.
    private mutating func readListings() throws(SyncKernelError) -> [RangeListing] {
        guard var items = field(.listings) else { return [] }
        let count = try items.readArrayHeader()
        try budget.chargeArray(of: RangeListing.self, count: count)
        var listings: [RangeListing] = []
        listings.reserveCapacity(count)
        for _ in 0..<count {
            let fields = try items.readArrayHeader()
            guard fields >= 3 else { throw SyncKernelError(.malformedFrame, "listing needs 3 fields") }
            let lo = try items.readBytes(budget: &budget)
            let range = KeyRange(lo: lo, hi: try items.readNullableBytes(budget: &budget))
            let leafCount = try items.readArrayHeader()
            try budget.chargeArray(of: Leaf.self, count: leafCount)
            var leaves: [Leaf] = []
            leaves.reserveCapacity(leafCount)
            for _ in 0..<leafCount {
                let pair = try items.readArrayHeader()
                guard pair >= 2 else { throw SyncKernelError(.malformedFrame, "listed leaf needs 2 fields") }
                let key = try items.readBytes(budget: &budget)
                let leaf = Leaf(key: key, hash: try items.readBytes(count: 32, budget: &budget))
                guard range.contains(leaf.key), leaves.last.map({ $0.key.lexicographicallyPrecedes(leaf.key) }) ?? true else {
                    throw SyncKernelError(.malformedFrame, "listed leaves out of order or range")
                }
                leaves.append(leaf)
                for _ in 2..<pair { try items.skip() }
            }
            listings.append(RangeListing(range: range, leaves: leaves))
            for _ in 3..<fields { try items.skip() }
        }
        return listings
    }

    /// Range fingerprints sent as `[lo, root, count]` with each `hi` implied by the next `lo`;
    /// refuses a first `lo` that is not empty or boundaries that do not increase.
    private mutating func readBuckets(_ cursor: inout CBORCursor) throws(SyncKernelError) -> [RangeBucket] {
        let count = try cursor.readArrayHeader()
        try budget.chargeArray(of: RangeBucket.self, count: count)
        var buckets: [RangeBucket] = []
        buckets.reserveCapacity(count)
        var previous: (lo: [UInt8], root: [UInt8], count: Int)?
        for _ in 0..<count {
            let fields = try cursor.readArrayHeader()
            guard fields >= 3 else { throw SyncKernelError(.malformedFrame, "bucket needs 3 fields") }
            let lo = try cursor.readBytes(budget: &budget)
            var rootCursor = cursor
            try cursor.skip()
            let rows = try cursor.readInt()
            guard rows >= 0 else { throw SyncKernelError(.malformedFrame, "negative bucket count") }
            if let previous {
                guard previous.lo.lexicographicallyPrecedes(lo) else {
                    throw SyncKernelError(.malformedFrame, "buckets do not tile in order")
                }
                buckets.append(RangeBucket(range: KeyRange(lo: previous.lo, hi: lo), root: previous.root, count: previous.count))
            } else {
                guard lo.isEmpty else { throw SyncKernelError(.malformedFrame, "buckets do not cover the key space") }
            }
            previous = (lo, try rootCursor.readBytes(count: 32, budget: &budget), rows)
            for _ in 3..<fields { try cursor.skip() }
        }
        if let previous { buckets.append(RangeBucket(range: KeyRange(lo: previous.lo, hi: nil), root: previous.root, count: previous.count)) }
        return buckets
    }
}
