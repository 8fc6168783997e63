extension SyncFrame {
    /// The canonical CBOR encoding of the frame: the spec's keys, or with `compactHeader` the
    /// compact ones (`FrameKey.compactName`), a kind code, the account's tag and a sketch's
    /// symbols in `SketchCodec.encodeCompact`'s form (its counts as residues when the request
    /// says so; the spec's form always carries full counts).
    package func encoded() -> [UInt8] {
        let compact = compactHeader
        func key(_ key: FrameKey) -> String { key.text(compact: compact) }
        var writer = CanonicalWriter(reservingCapacity: 256)
        writer.writeMap { map in
            if compact {
                map.entry(key(.kind)) { $0.write(body.kindCode) }
                if !omitsAccount {
                    let tag = account.count == SyncFrame.accountTagBytes ? account : SyncFrame.accountTag(of: account)
                    map.entry(key(.account)) { $0.write(bytes: tag) }
                }
            } else {
                map.entry(key(.type)) { $0.write(SyncFrame.payloadType) }
                map.entry(key(.kind)) { $0.write(body.kind) }
                map.entry(key(.account)) { $0.write(bytes: account) }
            }
            map.entry(key(.schema)) { $0.write(schema.value) }
            if !capabilities.isEmpty {
                map.entry(key(.caps)) { $0.writeArray(capabilities) { $0.write($1) } }
            }
            if let epochAnnouncement { map.entry(key(.epoch)) { epochAnnouncement.encode(into: &$0) } }
            if let epochEcho { map.entry(key(.epochEcho)) { $0.write(bytes: epochEcho) } }
            switch body {
            case .stateDigest(let digest, let probe, let changes):
                map.entry(key(.digest)) { $0.write(bytes: digest) }
                if probe { map.entry(key(.probe)) { $0.write(true) } }
                if !changes.isEmpty { map.entry(key(.changes)) { $0.writeArray(changes) { $0.write($1) } } }
            case .reconcileRequest(let request):
                map.entry(key(.ns)) { $0.write(request.namespace) }
                map.entry(key(.buckets)) { writer in
                    writer.writeArray(request.buckets) { writer, bucket in
                        writer.writeArrayHeader(count: 3)
                        writer.write(bytes: bucket.range.lo)
                        writer.write(bytes: bucket.root)
                        writer.write(bucket.count)
                    }
                }
                if !request.keys.isEmpty {
                    map.entry(key(.keys)) { $0.writeArray(request.keys) { $0.write(bytes: $1) } }
                }
            case .reconcileResponse(let response):
                SyncFrame.encode(response, table: compactVectors ? DeviceTable(covering: response, sender: sender) : nil,
                                 key: key, into: &map)
            case .push(let response, let root, let change):
                let table = DeviceTable(covering: response, sender: sender, receiver: receiver, senderEpoch: senderEpoch,
                                        delta: deltaDimension)
                SyncFrame.encode(response, table: table, omittingEmptyTable: true, delta: deltaDimension,
                                 position: pushPosition(of: response.namespace), key: key, into: &map)
                map.entry(key(.root)) { $0.write(bytes: root) }
                map.entry(key(.changes)) { $0.write(change) }
            case .pushAck(let namespace, let answer, let change, let following):
                SyncFrame.encode(namespace: namespace, position: pushPosition(of: namespace), key: key, into: &map)
                if following { map.entry(key(.probe)) { $0.write(true) } }
                map.entry(key(.answers)) { $0.write(answer.pushChange) }
                if case .differs(_, let root) = answer { map.entry(key(.root)) { $0.write(bytes: root) } }
                map.entry(key(.changes)) { $0.write(change) }
            case .heartbeat:
                break
            case .sketch(let sketch):
                map.entry(key(.ns)) { $0.write(sketch.namespace) }
                map.entry(key(.root)) { $0.write(bytes: sketch.root) }
                map.entry(key(.symbols)) { writer in
                    writer.write(bytes: compact ? SketchCodec.encodeCompact(sketch.symbols, countResidues: sketch.countResidues)
                                                : SketchCodec.encode(sketch.symbols))
                }
            case .rangeCompare(let compare):
                map.entry(key(.ns)) { $0.write(compare.namespace) }
                map.entry(key(.nodes)) { writer in
                    writer.writeArray(compare.nodes) { writer, pair in
                        writer.writeArrayHeader(count: 2)
                        writer.write(bytes: pair.node.nibbles)
                        writer.write(bytes: pair.fingerprint.encoded())
                    }
                }
                if !compare.listings.isEmpty {
                    map.entry(key(.listings)) { SyncFrame.encode(compare.listings, into: &$0) }
                }
            }
        }
        return writer.bytes
    }

    /// Decodes a frame from untrusted bytes under `CBORLimits.frame` and `SyncFrame.maxFrameBytes`,
    /// straight into typed values (`FrameReader`), keeping at most what `DecodeBudget` allows.
    ///
    /// Unknown map keys are ignored; `probe` and `tombstones` default when missing; a missing
    /// row vector decodes as nil. Everything else malformed throws a typed `SyncKernelError`.
    /// `sender` as in `init(decoding:account:sender:positions:receiver:)`.
    package init(decoding bytes: [UInt8], sender: DeviceID? = nil) throws(SyncKernelError) {
        var budget = DecodeBudget(inputBytes: bytes.count)
        self = try FrameReader.frame(decoding: bytes, sender: sender, budget: &budget)
    }

    /// Decodes a frame as `init(decoding:)` does, refusing one that names an account other than
    /// `account` with `foreignAccount` as soon as its `account` field is read: before its schema,
    /// kind or body (rows and vectors) are decoded. With `sender` (the device the frame came
    /// from), a device table's sender reference reads as that device; without, such a frame is
    /// `malformedFrame`. With `positions` (the reader's schema and its namespace names), a compact
    /// push or push_ack that names its namespace by position is read; without, or under another
    /// schema, such a frame is `malformedFrame`. With `receiver` (the device reading it), a push's
    /// receiver reference reads as that device; without, such a push is `malformedFrame`. A push's
    /// epoch reference (`DeviceTable.epochIndex`) reads as the frame's own announcement's
    /// dimension, else as `senderEpoch` (the one the reader holds for the sender), else as
    /// `DeviceID.unresolvedEpoch`. With `impliedAccount` (the reader's transport proved the
    /// account), a compact frame without an account tag reads as `account`'s; without, such a
    /// frame is `missingField`. What `Replica.receive` decodes with.
    package init(decoding bytes: [UInt8], account: [UInt8], sender: DeviceID? = nil,
                 positions: NamespacePositions? = nil, receiver: DeviceID? = nil, senderEpoch: DeviceID? = nil,
                 impliedAccount: Bool = false) throws(SyncKernelError) {
        var budget = DecodeBudget(inputBytes: bytes.count)
        self = try FrameReader.frame(decoding: bytes, account: account, sender: sender, positions: positions, receiver: receiver,
                                     senderEpoch: senderEpoch, impliedAccount: impliedAccount, budget: &budget)
    }

    /// Decodes a frame as `init(decoding:)` does, charging `budget` (so a caller can read what
    /// the frame keeps from `budget.charged`); `sender` and `positions` as in
    /// `init(decoding:account:sender:positions:receiver:)`.
    package init(decoding bytes: [UInt8], sender: DeviceID? = nil, positions: NamespacePositions? = nil, receiver: DeviceID? = nil,
                 budget: inout DecodeBudget) throws(SyncKernelError) {
        self = try FrameReader.frame(decoding: bytes, sender: sender, positions: positions, receiver: receiver, budget: &budget)
    }

    /// The position a compact `push` or `push_ack` names `namespace` by (`NamespacePositions`),
    /// nil when the frame is not compact or the writer gave no positions for its schema.
    private func pushPosition(of namespace: String) -> Int? {
        compactHeader ? positions?.position(of: namespace, in: schema) : nil
    }

    /// Writes a response's fields (`devices`, `ns`, `rows` and whichever of `tombstones`,
    /// `listings`, `want`, `want_prefixes`, `final` and `more` it holds) into a frame's map;
    /// `omittingEmptyTable` leaves an empty table out (a push, always read against one), `delta`
    /// (a push's write dimension) writes the rows `DeltaVector.applies` to as delta rows, and
    /// `position` names the namespace by position instead of by name.
    private static func encode(_ response: ReconcileResponse, table: DeviceTable?, omittingEmptyTable: Bool = false,
                               delta: DeviceID? = nil, position: Int? = nil, key: (FrameKey) -> String, into map: inout MapWriter) {
        if let table, !(omittingEmptyTable && table.devices.isEmpty) { map.entry(key(.devices)) { table.encode(into: &$0) } }
        encode(namespace: response.namespace, position: position, key: key, into: &map)
        map.entry(key(.rows)) { writer in
            writer.writeArray(response.rows) { writer, shipped in
                if let table, let check = shipped.base, let vector = shipped.vector {
                    SyncFrame.encode(delta: vector, check: check, of: shipped, table: table, into: &writer)
                } else if let table, let delta, let vector = shipped.vector,
                          DeltaVector.applies(to: shipped, dimension: delta, sender: table.sender, receiver: table.receiver) {
                    SyncFrame.encode(delta: DeltaVector.delta(of: vector, dimension: delta),
                                     check: DeltaVector.check(of: vector, excluding: [delta]), of: shipped, table: table, into: &writer)
                } else {
                    SyncFrame.encode(shipped, table: table, into: &writer)
                }
            }
        }
        if !response.tombstones.isEmpty {
            map.entry(key(.tombstones)) { writer in
                writer.writeArray(response.tombstones) { writer, tombstone in
                    writer.writeArrayHeader(count: 2)
                    writer.write(bytes: tombstone.key)
                    SyncFrame.encode(tombstone.vector, table: table, into: &writer)
                }
            }
        }
        if !response.listings.isEmpty {
            map.entry(key(.listings)) { SyncFrame.encode(response.listings, into: &$0) }
        }
        if !response.want.isEmpty {
            map.entry(key(.want)) { $0.writeArray(response.want) { $0.write(bytes: $1) } }
        }
        if !response.wantPrefixes.isEmpty {
            map.entry(key(.wantPrefixes)) { $0.writeArray(response.wantPrefixes) { $0.write(bytes: $1) } }
        }
        if response.isFinal { map.entry(key(.final)) { $0.write(true) } }
        if response.remaining > 0 { map.entry(key(.more)) { $0.write(UInt64(response.remaining)) } }
    }

    /// Writes `ns`: the namespace's position when there is one, else its name.
    private static func encode(namespace: String, position: Int?, key: (FrameKey) -> String, into map: inout MapWriter) {
        if let position {
            map.entry(key(.ns)) { $0.write(UInt64(position)) }
        } else {
            map.entry(key(.ns)) { $0.write(namespace) }
        }
    }

    /// Writes a vector by device key, or by position in `table` when there is one.
    private static func encode(_ vector: VersionVector, table: DeviceTable?, own: DeviceID? = nil,
                               into writer: inout CanonicalWriter) {
        if let table { table.encode(vector, own: own, into: &writer) } else { vector.encode(into: &writer) }
    }

    /// The most capabilities a frame may list.
    static let maxCapabilities = 16

    private static func encode(_ listings: [RangeListing], into writer: inout CanonicalWriter) {
        writer.writeArray(listings) { writer, listing in
            writer.writeArrayHeader(count: 3)
            writer.write(bytes: listing.range.lo)
            if let hi = listing.range.hi { writer.write(bytes: hi) } else { writer.writeNull() }
            writer.writeArray(listing.leaves) { writer, leaf in
                writer.writeArrayHeader(count: 2)
                writer.write(bytes: leaf.key)
                writer.write(bytes: leaf.hash)
            }
        }
    }

    /// Writes a shipped row: the spec's map (`r`, `v`, `c`, `s`, `w`) without a table; against a
    /// table the positional form `[row, vector, writer, content, siblings]`, each absent field
    /// `null` and trailing nulls left out (every row ends up `[row, vector, writer]` or shorter
    /// but for a conflict), which saves the map's four keys.
    private static func encode(_ shipped: ShippedRow, table: DeviceTable?, into writer: inout CanonicalWriter) {
        guard let table else {
            writer.writeMap { entry in
                entry.entry("r") { $0.write(encodedItem: shipped.row) }
                if let vector = shipped.vector { entry.entry("v") { vector.encode(into: &$0) } }
                if let content = shipped.contentVector { entry.entry("c") { content.encode(into: &$0) } }
                if !shipped.siblings.isEmpty {
                    entry.entry("s") { $0.writeArray(shipped.siblings) { writer, sibling in encode(sibling, table: nil, into: &writer) } }
                }
                if let device = shipped.writer { entry.entry("w") { $0.write(bytes: device.publicKey) } }
            }
            return
        }
        let fields = shipped.positionalFieldCount
        writer.writeArrayHeader(count: fields)
        writer.write(encodedItem: shipped.row)
        guard fields > 1 else { return }
        if let vector = shipped.vector { table.encode(vector, own: shipped.creation, into: &writer) } else { writer.writeNull() }
        guard fields > 2 else { return }
        if let device = shipped.writer { table.encode(writer: device, into: &writer) } else { writer.writeNull() }
        guard fields > 3 else { return }
        if let content = shipped.contentVector { table.encode(content, own: shipped.creation, into: &writer) } else { writer.writeNull() }
        guard fields > 4 else { return }
        writer.writeArray(shipped.siblings) { writer, sibling in encode(sibling, table: table, into: &writer) }
    }
}

extension SyncFrame {
    /// Writes a push's delta row (`DeltaVector`): `[row, [check, index, count, ...], writer]`, the
    /// changed entries `delta` over `check` of the rest (writer left out when unknown); a row
    /// decoded in this form is written back the same.
    fileprivate static func encode(delta: VersionVector, check: [UInt8], of shipped: ShippedRow, table: DeviceTable,
                                   into writer: inout CanonicalWriter) {
        writer.writeArrayHeader(count: shipped.writer == nil ? 2 : 3)
        writer.write(encodedItem: shipped.row)
        table.encode(delta, check: check, into: &writer)
        if let device = shipped.writer { table.encode(writer: device, into: &writer) }
    }
}

extension ShippedRow {
    /// How many fields the positional form writes: up to the last present one of row, vector,
    /// writer, content vector and siblings.
    fileprivate var positionalFieldCount: Int {
        if !siblings.isEmpty { return 5 }
        if contentVector != nil { return 4 }
        if writer != nil { return 3 }
        return vector != nil ? 2 : 1
    }
}
