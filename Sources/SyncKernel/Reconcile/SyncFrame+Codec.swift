extension SyncFrame {
    /// The canonical CBOR encoding of the frame.
    package func encoded() -> [UInt8] {
        var writer = CanonicalWriter(reservingCapacity: 256)
        writer.writeMap { map in
            map.entry("type") { $0.write(SyncFrame.payloadType) }
            map.entry("kind") { $0.write(body.kind) }
            map.entry("account") { $0.write(bytes: account) }
            map.entry("schema") { $0.write(schema.value) }
            if !capabilities.isEmpty {
                map.entry("caps") { $0.writeArray(capabilities) { $0.write($1) } }
            }
            switch body {
            case .stateDigest(let digest, let probe, let changes):
                map.entry("digest") { $0.write(bytes: digest) }
                if probe { map.entry("probe") { $0.write(true) } }
                if !changes.isEmpty { map.entry("changes") { $0.writeArray(changes) { $0.write($1) } } }
            case .reconcileRequest(let request):
                map.entry("ns") { $0.write(request.namespace) }
                map.entry("buckets") { writer in
                    writer.writeArray(request.buckets) { writer, bucket in
                        writer.writeArrayHeader(count: 3)
                        writer.write(bytes: bucket.range.lo)
                        writer.write(bytes: bucket.root)
                        writer.write(bucket.count)
                    }
                }
                if !request.keys.isEmpty {
                    map.entry("keys") { $0.writeArray(request.keys) { $0.write(bytes: $1) } }
                }
            case .reconcileResponse(let response):
                let table = compactVectors ? DeviceTable(covering: response).ifSmaller(for: response) : nil
                if let table { map.entry("devices") { table.encode(into: &$0) } }
                map.entry("ns") { $0.write(response.namespace) }
                map.entry("rows") { writer in
                    writer.writeArray(response.rows) { writer, shipped in SyncFrame.encode(shipped, table: table, into: &writer) }
                }
                if !response.tombstones.isEmpty {
                    map.entry("tombstones") { writer in
                        writer.writeArray(response.tombstones) { writer, tombstone in
                            writer.writeArrayHeader(count: 2)
                            writer.write(bytes: tombstone.key)
                            SyncFrame.encode(tombstone.vector, table: table, into: &writer)
                        }
                    }
                }
                if !response.listings.isEmpty {
                    map.entry("listings") { SyncFrame.encode(response.listings, into: &$0) }
                }
                if !response.want.isEmpty {
                    map.entry("want") { $0.writeArray(response.want) { $0.write(bytes: $1) } }
                }
                if response.isFinal { map.entry("final") { $0.write(true) } }
            case .heartbeat:
                break
            case .sketch(let sketch):
                map.entry("ns") { $0.write(sketch.namespace) }
                map.entry("root") { $0.write(bytes: sketch.root) }
                map.entry("symbols") { $0.write(bytes: SketchCodec.encode(sketch.symbols)) }
            case .rangeCompare(let compare):
                map.entry("ns") { $0.write(compare.namespace) }
                map.entry("nodes") { writer in
                    writer.writeArray(compare.nodes) { writer, pair in
                        writer.writeArrayHeader(count: 2)
                        writer.write(bytes: pair.node.nibbles)
                        writer.write(bytes: pair.fingerprint.encoded())
                    }
                }
                if !compare.listings.isEmpty {
                    map.entry("listings") { SyncFrame.encode(compare.listings, into: &$0) }
                }
            }
        }
        return writer.bytes
    }

    /// Decodes a frame from untrusted bytes under `CBORLimits.frame`.
    ///
    /// Unknown map keys are ignored; `probe` and `tombstones` default when missing; a missing
    /// row vector decodes as nil. Everything else malformed throws a typed `SyncKernelError`.
    package init(decoding bytes: [UInt8]) throws(SyncKernelError) {
        let value = try CBORReader.decode(bytes)
        guard try value.required("type").text() == SyncFrame.payloadType else {
            throw SyncKernelError(.unsupportedPayload)
        }
        let account = try value.required("account").bytes(count: 32)
        let schema = SchemaFingerprint(value: try value.required("schema").uint())
        let kind = try value.required("kind").text()
        var compactVectors = false
        var capabilities: [String] = []
        for item in try value["caps"]?.array() ?? [] {
            guard capabilities.count < SyncFrame.maxCapabilities else { throw SyncKernelError(.malformedFrame, "too many capabilities") }
            capabilities.append(try item.text())
        }
        let body: Body
        switch kind {
        case "state_digest":
            var changes: [UInt64] = []
            for item in try value["changes"]?.array() ?? [] { changes.append(try item.uint()) }
            body = .stateDigest(digest: try value.required("digest").bytes(), probe: try value["probe"]?.bool() ?? false,
                                changes: changes)
        case "reconcile_req":
            let buckets = try SyncFrame.decodeBuckets(value.required("buckets"))
            var keys: [[UInt8]] = []
            for item in try value["keys"]?.array() ?? [] { keys.append(try item.bytes()) }
            body = .reconcileRequest(ReconcileRequest(namespace: try value.required("ns").text(), buckets: buckets, keys: keys))
        case "reconcile_resp":
            let table = try value["devices"].map { (devices: CBORValue) throws(SyncKernelError) in try DeviceTable(decoding: devices) }
            compactVectors = table != nil
            var rows: [ShippedRow] = []
            for item in try value.required("rows").array() { rows.append(try SyncFrame.decodeShippedRow(item, table: table, depth: 0)) }
            var tombstones: [Tombstone] = []
            for item in try value["tombstones"]?.array() ?? [] {
                let fields = try item.array()
                guard fields.count >= 2 else { throw SyncKernelError(.malformedFrame, "tombstone needs 2 fields") }
                tombstones.append(Tombstone(key: try fields[0].bytes(), vector: try SyncFrame.decodeVector(fields[1], table: table)))
            }
            var want: [[UInt8]] = []
            for item in try value["want"]?.array() ?? [] { want.append(try item.bytes()) }
            body = .reconcileResponse(ReconcileResponse(namespace: try value.required("ns").text(),
                                                        rows: rows, tombstones: tombstones,
                                                        listings: try SyncFrame.decodeListings(value["listings"]), want: want,
                                                        isFinal: try value["final"]?.bool() ?? false))
        case "heartbeat":
            body = .heartbeat
        case "sketch_req":
            let symbols = try SketchCodec.decode(try value.required("symbols").bytes(), maxSymbols: RatelessSketch.standardCapacity)
            body = .sketch(SketchRequest(namespace: try value.required("ns").text(), root: try value.required("root").bytes(count: SketchRequest.rootPrefixBytes),
                                         symbols: symbols))
        case "range_req":
            var nodes: [RangeCompare.NodeFingerprint] = []
            for item in try value.required("nodes").array() {
                let fields = try item.array()
                guard fields.count >= 2, let node = PrefixNode(nibbles: try fields[0].bytes()) else {
                    throw SyncKernelError(.malformedFrame, "a trie node needs valid nibbles and a fingerprint")
                }
                let fingerprint = try RangeFingerprint(decoding: try fields[1].bytes(),
                                                       failure: SyncKernelError(.malformedFrame, "a fingerprint is 24 bytes"))
                nodes.append(RangeCompare.NodeFingerprint(node: node, fingerprint: fingerprint))
            }
            body = .rangeCompare(RangeCompare(namespace: try value.required("ns").text(), nodes: nodes,
                                              listings: try SyncFrame.decodeListings(value["listings"])))
        default:
            throw SyncKernelError(.unknownFrameKind)
        }
        self.init(account: account, schema: schema, body: body, capabilities: capabilities, compactVectors: compactVectors)
    }

    /// Writes a vector by device key, or by position in `table` when there is one.
    private static func encode(_ vector: VersionVector, table: DeviceTable?, own: DeviceID? = nil,
                               into writer: inout CanonicalWriter) {
        if let table { table.encode(vector, own: own, into: &writer) } else { vector.encode(into: &writer) }
    }

    /// Reads a vector written by `encode(_:table:own:into:)` with the same table (or none).
    private static func decodeVector(_ value: CBORValue, table: DeviceTable?, allowsOwn: Bool = false) throws(SyncKernelError) -> VersionVector {
        if let table { return try table.decodeVector(value, allowsOwn: allowsOwn) }
        return try VersionVector(decoding: value)
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

    private static func decodeListings(_ value: CBORValue?) throws(SyncKernelError) -> [RangeListing] {
        var listings: [RangeListing] = []
        for item in try value?.array() ?? [] { listings.append(try decodeListing(item)) }
        return listings
    }

    private static func encode(_ shipped: ShippedRow, table: DeviceTable?, into writer: inout CanonicalWriter) {
        writer.writeMap { entry in
            entry.entry("r") { $0.write(encodedItem: shipped.row) }
            if let vector = shipped.vector { entry.entry("v") { encode(vector, table: table, own: shipped.creation, into: &$0) } }
            if let content = shipped.contentVector {
                entry.entry("c") { encode(content, table: table, own: shipped.creation, into: &$0) }
            }
            if !shipped.siblings.isEmpty {
                entry.entry("s") { $0.writeArray(shipped.siblings) { writer, sibling in encode(sibling, table: table, into: &writer) } }
            }
        }
    }

    /// Reads one shipped row; siblings nest one level only.
    private static func decodeShippedRow(_ item: CBORValue, table: DeviceTable?, depth: Int) throws(SyncKernelError) -> ShippedRow {
        let vector = try item["v"].map { (v: CBORValue) throws(SyncKernelError) in try decodeVector(v, table: table, allowsOwn: true) }
        let content = try item["c"].map { (c: CBORValue) throws(SyncKernelError) in try decodeVector(c, table: table, allowsOwn: true) }
        var siblings: [ShippedRow] = []
        if let nested = item["s"] {
            guard depth == 0 else { throw SyncKernelError(.malformedFrame, "siblings of a sibling") }
            for sibling in try nested.array() { siblings.append(try decodeShippedRow(sibling, table: table, depth: 1)) }
        }
        return ShippedRow(row: try item.required("r").encoded(), vector: vector, contentVector: content, siblings: siblings)
    }

    /// Reads one listing, refusing leaves out of order or outside its range.
    private static func decodeListing(_ item: CBORValue) throws(SyncKernelError) -> RangeListing {
        let fields = try item.array()
        guard fields.count >= 3 else { throw SyncKernelError(.malformedFrame, "listing needs 3 fields") }
        let range = KeyRange(lo: try fields[0].bytes(), hi: fields[1] == .null ? nil : try fields[1].bytes())
        var leaves: [Leaf] = []
        for entry in try fields[2].array() {
            let pair = try entry.array()
            guard pair.count >= 2 else { throw SyncKernelError(.malformedFrame, "listed leaf needs 2 fields") }
            let leaf = Leaf(key: try pair[0].bytes(), hash: try pair[1].bytes(count: 32))
            guard range.contains(leaf.key), leaves.last.map({ $0.key.lexicographicallyPrecedes(leaf.key) }) ?? true else {
                throw SyncKernelError(.malformedFrame, "listed leaves out of order or range")
            }
            leaves.append(leaf)
        }
        return RangeListing(range: range, leaves: leaves)
    }

    /// Reads range fingerprints sent as `[lo, root, count]` with each `hi` implied by the next
    /// `lo`; refuses a first `lo` that is not empty or boundaries that do not increase.
    private static func decodeBuckets(_ value: CBORValue) throws(SyncKernelError) -> [RangeBucket] {
        var parts: [(lo: [UInt8], root: [UInt8], count: Int)] = []
        for item in try value.array() {
            let fields = try item.array()
            guard fields.count >= 3 else { throw SyncKernelError(.malformedFrame, "bucket needs 3 fields") }
            let lo = try fields[0].bytes()
            let count = try fields[2].int()
            guard count >= 0 else { throw SyncKernelError(.malformedFrame, "negative bucket count") }
            if let previous = parts.last {
                guard previous.lo.lexicographicallyPrecedes(lo) else {
                    throw SyncKernelError(.malformedFrame, "buckets do not tile in order")
                }
            } else {
                guard lo.isEmpty else { throw SyncKernelError(.malformedFrame, "buckets do not cover the key space") }
            }
            parts.append((lo, try fields[1].bytes(count: 32), count))
        }
        return parts.indices.map { index in
            RangeBucket(range: KeyRange(lo: parts[index].lo, hi: index + 1 < parts.count ? parts[index + 1].lo : nil),
                        root: parts[index].root, count: parts[index].count)
        }
    }
}
