import SyncKernel
import SyncKernelSimulator
import XCTest

/// The `sync_delta` frame codec: every kind round-trips to the same canonical bytes, keys a newer
/// peer adds are ignored and missing optionals default, and malformed frames are refused with a
/// typed `SyncKernelError`, never a trap.
final class FrameCodecTests: XCTestCase {
    private let account = [UInt8](repeating: 0xab, count: 32)
    private let schema = SchemaFingerprint(value: 0x0102_0304_0506_0708)

    private func vector() -> VersionVector {
        VersionVector([TestWorld.device(0): 3, TestWorld.device(1): 1])
    }

    private func roundTrip(_ body: SyncFrame.Body, file: StaticString = #filePath, line: UInt = #line) throws {
        let frame = SyncFrame(account: account, schema: schema, body: body)
        let decoded = try SyncFrame(decoding: frame.encoded())
        XCTAssertEqual(decoded, frame, file: file, line: line)
        XCTAssertEqual(decoded.encoded(), frame.encoded(), file: file, line: line)
    }

    func testEveryKindRoundTrips() throws {
        try roundTrip(.heartbeat)
        try roundTrip(.stateDigest(digest: [1, 2, 3], probe: false))
        try roundTrip(.stateDigest(digest: [1, 2, 3], probe: true))
        let buckets = [RangeBucket(range: KeyRange(lo: [], hi: [5]), root: [UInt8](repeating: 1, count: 32), count: 3),
                       RangeBucket(range: KeyRange(lo: [5], hi: nil), root: [UInt8](repeating: 2, count: 32), count: 1)]
        try roundTrip(.reconcileRequest(ReconcileRequest(namespace: "records", buckets: buckets)))
        let row = RecordNamespace.rowEncoding(of: .init(id: "a", value: "b", updatedAt: 4))
        try roundTrip(.reconcileResponse(ReconcileResponse(
            namespace: "records", rows: [ShippedRow(row: row, vector: vector()), ShippedRow(row: row, vector: nil)],
            tombstones: [Tombstone(key: [1], vector: vector())])))
    }

    private func frameBytes(_ build: (inout MapWriter) -> Void) -> [UInt8] {
        var writer = CanonicalWriter()
        writer.writeMap { map in
            map.entry("type") { $0.write(SyncFrame.payloadType) }
            map.entry("account") { $0.write(bytes: account) }
            map.entry("schema") { $0.write(schema.value) }
            build(&map)
        }
        return writer.bytes
    }

    func testUnknownKeysFromANewerPeerAreIgnoredAndMissingOptionalsDefault() throws {
        let row = RecordNamespace.rowEncoding(of: .init(id: "a", value: "b", updatedAt: 4))
        let bytes = frameBytes { map in
            map.entry("kind") { $0.write("reconcile_resp") }
            map.entry("ns") { $0.write("records") }
            map.entry("future_field") { $0.write(UInt64(42)) }
            map.entry("rows") { writer in
                writer.writeArrayHeader(count: 1)
                writer.writeMap { entry in
                    entry.entry("r") { $0.write(encodedItem: row) }
                    entry.entry("x-new") { $0.write(true) }
                }
            }
        }
        let frame = try SyncFrame(decoding: bytes)
        XCTAssertEqual(frame.body, .reconcileResponse(ReconcileResponse(namespace: "records",
                                                                        rows: [ShippedRow(row: row, vector: nil)],
                                                                        tombstones: [])))
        let digest = try SyncFrame(decoding: frameBytes { map in
            map.entry("kind") { $0.write("state_digest") }
            map.entry("digest") { $0.write(bytes: [9]) }
        })
        XCTAssertEqual(digest.body, .stateDigest(digest: [9], probe: false))
    }

    private func assertRejected(_ bytes: [UInt8], _ code: SyncKernelError.Code, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try SyncFrame(decoding: bytes), file: file, line: line) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, code, "\(error)", file: file, line: line)
        }
    }

    func testRejectUnknownKindOtherPayloadsAndMissingFields() {
        assertRejected(frameBytes { map in map.entry("kind") { $0.write("gc_propose_v9") } }, .unknownFrameKind)
        var writer = CanonicalWriter()
        writer.writeMap { map in
            map.entry("type") { $0.write("chat") }
            map.entry("kind") { $0.write("heartbeat") }
        }
        assertRejected(writer.bytes, .unsupportedPayload)
        assertRejected(frameBytes { map in map.entry("kind") { $0.write("state_digest") } }, .missingField)
        assertRejected(frameBytes { map in
            map.entry("kind") { $0.write("reconcile_req") }
            map.entry("ns") { $0.write(UInt64(3)) }
            map.entry("buckets") { $0.writeArrayHeader(count: 0) }
        }, .unexpectedType)
    }

    func testRejectBucketsThatDoNotTileTheKeySpace() throws {
        func request(_ los: [[UInt8]]) -> [UInt8] {
            frameBytes { map in
                map.entry("kind") { $0.write("reconcile_req") }
                map.entry("ns") { $0.write("records") }
                map.entry("buckets") { writer in
                    writer.writeArray(los) { writer, lo in
                        writer.writeArrayHeader(count: 3)
                        writer.write(bytes: lo)
                        writer.write(bytes: [UInt8](repeating: 0, count: 32))
                        writer.write(UInt64(1))
                    }
                }
            }
        }
        assertRejected(request([[1]]), .malformedFrame)
        assertRejected(request([[], [5], [5]]), .malformedFrame)
        assertRejected(request([[], [5], [4]]), .malformedFrame)
        let decoded = try SyncFrame(decoding: request([[], [5], [5, 1]]))
        guard case .reconcileRequest(let parsed) = decoded.body else { return XCTFail("not a request") }
        XCTAssertEqual(parsed.buckets.map(\.range), [KeyRange(lo: [], hi: [5]), KeyRange(lo: [5], hi: [5, 1]),
                                                     KeyRange(lo: [5, 1], hi: nil)], "each hi is the next lo")
    }

    func testRejectWrongAccountLengthAndGarbageWithoutTrapping() {
        var writer = CanonicalWriter()
        writer.writeMap { map in
            map.entry("type") { $0.write(SyncFrame.payloadType) }
            map.entry("kind") { $0.write("heartbeat") }
            map.entry("account") { $0.write(bytes: [1, 2]) }
            map.entry("schema") { $0.write(UInt64(1)) }
        }
        assertRejected(writer.bytes, .unexpectedType)
        let valid = SyncFrame(account: account, schema: schema, body: .stateDigest(digest: [1, 2], probe: true)).encoded()
        var random = SeededGenerator(seed: 99)
        for _ in 0..<5_000 {
            var mutated = valid
            let flips = 1 + Int(random.next() % 3)
            for _ in 0..<flips { mutated[Int(random.next() % UInt64(mutated.count))] = UInt8(truncatingIfNeeded: random.next()) }
            if random.chance(0.3) { mutated = Array(mutated.prefix(Int(random.next() % UInt64(mutated.count)))) }
            _ = try? SyncFrame(decoding: mutated)
        }
    }
}

/// The sketch exchange's frames: `sketch_req`, `range_req` and a `reconcile_resp` with wanted
/// keys, a ship-back mark and compact vectors round-trip; each malformed variant is refused with
/// a typed error, never a trap.
extension FrameCodecTests {
    private func symbols(_ count: Int, seed: UInt64) -> [CodedSymbol] {
        var random = SeededGenerator(seed: seed)
        var sketch = RatelessSketch(capacity: count)
        for index in 0..<(count / 2 + 1) {
            sketch.apply(SketchItem(key: Array("key-\(index)".utf8), itemHash: random.bytes(32)), direction: random.chance(0.3) ? -1 : 1)
        }
        return sketch.symbols
    }

    /// Two sorted devices, and a response whose vectors name them often enough that a compact
    /// device table makes the frame smaller.
    private func compactResponse() -> (devices: [DeviceID], response: ReconcileResponse) {
        let devices = [TestWorld.device(0), TestWorld.device(1), TestWorld.device(2)].sorted()
        let sibling = ShippedRow(row: RecordNamespace.rowEncoding(of: RecordNamespace.Row(id: "r1", value: "w", updatedAt: 3)),
                                 vector: VersionVector([devices[2]: 5]))
        var rows: [ShippedRow] = []
        for index in 0..<4 {
            let row = RecordNamespace.rowEncoding(of: RecordNamespace.Row(id: "r\(index)", value: "v", updatedAt: 4))
            let vector = VersionVector([devices[0]: UInt64(index + 1), devices[1]: 2])
            let content: VersionVector? = index == 0 ? VersionVector([devices[0]: 1]) : nil
            rows.append(ShippedRow(row: row, vector: vector, contentVector: content, siblings: index == 1 ? [sibling] : []))
        }
        let response = ReconcileResponse(namespace: "records", rows: rows,
                                         tombstones: [Tombstone(key: [7], vector: VersionVector([devices[1]: 3, devices[2]: 1]))],
                                         want: [[1], [2, 3]], isFinal: true)
        return (devices, response)
    }

    func testSketchRangeAndCompactResponseFramesRoundTrip() throws {
        let root = [UInt8](repeating: 0x5a, count: 32)
        try roundTrip(.sketch(SketchRequest(namespace: "records", root: root, symbols: symbols(40, seed: 1))))
        try roundTrip(.sketch(SketchRequest(namespace: "records", root: root, symbols: [.zero])))
        try roundTrip(.sketch(SketchRequest(namespace: "records", root: root,
                                            symbols: symbols(RatelessSketch.standardCapacity, seed: 2))))
        let nodes = try [[], [3], [0, 15, 7], [UInt8](repeating: 9, count: 20)].map { nibbles in
            RangeCompare.NodeFingerprint(node: try XCTUnwrap(PrefixNode(nibbles: nibbles)),
                                         fingerprint: RangeFingerprint(count: Int64(nibbles.count), sum: UInt128(nibbles.count) << 100 | 7))
        }
        let leaves = [Leaf(key: [0x30], hash: [UInt8](repeating: 1, count: 32)),
                      Leaf(key: [0x30, 0], hash: [UInt8](repeating: 2, count: 32))]
        try roundTrip(.rangeCompare(RangeCompare(namespace: "records", nodes: nodes)))
        try roundTrip(.rangeCompare(RangeCompare(namespace: "records", nodes: [],
                                                 listings: [RangeListing(range: KeyRange(lo: [0x30], hi: [0x40]), leaves: leaves),
                                                            RangeListing(range: KeyRange(lo: [0xF0], hi: nil), leaves: [])])))

        let (_, response) = compactResponse()
        let compact = SyncFrame(account: account, schema: schema, body: .reconcileResponse(response),
                                capabilities: [SyncFrame.sketchCapability], compactVectors: true)
        let decoded = try SyncFrame(decoding: compact.encoded())
        XCTAssertEqual(decoded, compact)
        XCTAssertTrue(decoded.compactVectors, "the frame carried a device table")
        XCTAssertEqual(decoded.capabilities, [SyncFrame.sketchCapability])
        XCTAssertEqual(decoded.encoded(), compact.encoded())
        let plain = SyncFrame(account: account, schema: schema, body: .reconcileResponse(response))
        XCTAssertEqual(try SyncFrame(decoding: plain.encoded()).body, .reconcileResponse(response))
        XCTAssertLessThan(compact.encoded().count, plain.encoded().count, "the table is used only when it saves bytes")
        try roundTrip(.reconcileResponse(ReconcileResponse(namespace: "records", rows: [], tombstones: [], want: [[9]])))
    }

    func testRejectASketchOfMoreSymbolsThanTheCapacity() throws {
        let base = symbols(64, seed: 3)
        let symbols = (0..<(SketchRequest.maxSymbols + 1)).map { base[$0 % base.count] }
        let frame = SyncFrame(account: account, schema: schema,
                              body: .sketch(SketchRequest(namespace: "records", root: [UInt8](repeating: 1, count: 32), symbols: symbols)))
        assertRejected(frame.encoded(), .malformedFrame)
    }

    func testRejectASketchRootOfAnotherLength() {
        for length in [0, SketchRequest.rootPrefixBytes - 1, SketchRequest.rootPrefixBytes + 1, 32] {
            assertRejected(frameBytes { map in
                map.entry("kind") { $0.write("sketch_req") }
                map.entry("ns") { $0.write("records") }
                map.entry("root") { $0.write(bytes: [UInt8](repeating: 1, count: length)) }
                map.entry("symbols") { $0.write(bytes: SketchCodec.encode(self.symbols(4, seed: 4))) }
            }, .unexpectedType)
        }
        assertRejected(frameBytes { map in
            map.entry("kind") { $0.write("sketch_req") }
            map.entry("ns") { $0.write("records") }
            map.entry("symbols") { $0.write(bytes: SketchCodec.encode(self.symbols(4, seed: 4))) }
        }, .missingField)
    }

    /// A `reconcile_resp` with a device table of `devices` and one row, in the positional form,
    /// whose vector is `vector`.
    private func compactFrame(devices: [DeviceID], vector: [UInt64], tombstoneVector: [UInt64] = []) -> [UInt8] {
        let row = RecordNamespace.rowEncoding(of: .init(id: "a", value: "b", updatedAt: 4))
        return frameBytes { map in
            map.entry("kind") { $0.write("reconcile_resp") }
            map.entry("ns") { $0.write("records") }
            map.entry("devices") { $0.writeArray(devices) { $0.write(bytes: $1.publicKey) } }
            map.entry("rows") { writer in
                writer.writeArrayHeader(count: 1)
                writer.writeArrayHeader(count: 2)
                writer.write(encodedItem: row)
                writer.writeArray(vector) { $0.write($1) }
            }
            if !tombstoneVector.isEmpty {
                map.entry("tombstones") { writer in
                    writer.writeArrayHeader(count: 1)
                    writer.writeArrayHeader(count: 2)
                    writer.write(bytes: [7])
                    writer.writeArray(tombstoneVector) { $0.write($1) }
                }
            }
        }
    }

    func testRejectADeviceTableOutOfOrderOrWithARepeat() throws {
        let (devices, _) = compactResponse()
        let valid = try SyncFrame(decoding: compactFrame(devices: devices, vector: [0, 1, 2, 4]))
        guard case .reconcileResponse(let response) = valid.body else { return XCTFail("a response") }
        XCTAssertEqual(response.rows.first?.vector, VersionVector([devices[0]: 1, devices[2]: 4]), "the hand-made frame is valid")
        assertRejected(compactFrame(devices: [devices[1], devices[0]], vector: [0, 1]), .malformedFrame)
        assertRejected(compactFrame(devices: [devices[0], devices[0]], vector: [0, 1]), .malformedFrame)
        assertRejected(compactFrame(devices: [devices[0], devices[2], devices[1]], vector: [0, 1]), .malformedFrame)
    }

    func testRejectACompactVectorPastTheTableOddOutOfOrderOrZero() throws {
        let (devices, _) = compactResponse()
        let table = Array(devices.prefix(2))
        XCTAssertNoThrow(try SyncFrame(decoding: compactFrame(devices: table, vector: [0, 3, 1, 1], tombstoneVector: [1, 2])))
        let own = try SyncFrame(decoding: compactFrame(devices: table, vector: [0, 3, 2, 1]))
        guard case .reconcileResponse(let response) = own.body else { return XCTFail("a response") }
        XCTAssertEqual(response.rows.first?.vector, VersionVector([table[0]: 3, DeviceID.ownCreation: 1]),
                       "one past the table is the row's own creation, resolved when it is merged")
        for vector: [UInt64] in [[3, 1], [0, 1, 5, 1], [0], [0, 1, 1], [1, 1, 0, 1], [0, 1, 0, 2], [0, 0], [0, 1, 1, 0]] {
            assertRejected(compactFrame(devices: table, vector: vector), .malformedFrame)
        }
        // A tombstone has no row to derive a creation from: one past the table is refused there.
        assertRejected(compactFrame(devices: table, vector: [0, 1], tombstoneVector: [2, 1]), .malformedFrame)
        assertRejected(compactFrame(devices: table, vector: [0, 1], tombstoneVector: [1, 0]), .malformedFrame)
    }

    func testAShippedVersionsWriterRoundTripsByKeyOrByTablePositionAndAnOlderPeerIgnoresIt() throws {
        let devices = (0..<4).map(TestWorld.device).sorted()
        let row = RecordNamespace.rowEncoding(of: .init(id: "a", value: "b", updatedAt: 4))
        let other = RecordNamespace.rowEncoding(of: .init(id: "a", value: "c", updatedAt: 4))
        let sibling = ShippedRow(row: other, vector: VersionVector([devices[1]: 2]), writer: devices[3])
        let response = ReconcileResponse(namespace: "records", rows: [
            ShippedRow(row: row, vector: VersionVector([devices[0]: 1, devices[1]: 1]), siblings: [sibling], writer: devices[0]),
            ShippedRow(row: row, vector: VersionVector([devices[2]: 1])),
        ], tombstones: [])
        for compact in [false, true] {
            let frame = SyncFrame(account: account, schema: schema, body: .reconcileResponse(response), compactVectors: compact)
            let decoded = try SyncFrame(decoding: frame.encoded())
            guard case .reconcileResponse(let back) = decoded.body else { return XCTFail("a response") }
            XCTAssertEqual(back.rows.map(\.writer), [devices[0], nil], "compact: \(compact)")
            XCTAssertEqual(back.rows.first?.siblings.first?.writer, devices[3], "a writer outside every vector still travels")
            XCTAssertEqual(decoded.encoded(), frame.encoded())
            XCTAssertEqual(decoded.compactVectors, compact, "the compact frame names the writers by table position")
        }
        // A peer that writes no `w` (an older build) ships versions whose writer is unknown.
        let older = try SyncFrame(decoding: compactFrame(devices: Array(devices.prefix(2)), vector: [0, 1]))
        guard case .reconcileResponse(let fromOlder) = older.body else { return XCTFail("a response") }
        XCTAssertNil(fromOlder.rows.first?.writer)
    }

    func testRejectAWriterThatIsNotADeviceKeyOrIsPastTheDeviceTable() throws {
        let row = RecordNamespace.rowEncoding(of: .init(id: "a", value: "b", updatedAt: 4))
        let devices = (0..<2).map(TestWorld.device).sorted()
        func frame(table: [DeviceID]?, _ writeWriter: @escaping (inout CanonicalWriter) -> Void) -> [UInt8] {
            frameBytes { map in
                map.entry("kind") { $0.write("reconcile_resp") }
                map.entry("ns") { $0.write("records") }
                if let table { map.entry("devices") { $0.writeArray(table) { $0.write(bytes: $1.publicKey) } } }
                map.entry("rows") { writer in
                    writer.writeArrayHeader(count: 1)
                    if table == nil {
                        writer.writeMap { entry in
                            entry.entry("r") { $0.write(encodedItem: row) }
                            entry.entry("w", writeWriter)
                        }
                    } else {
                        writer.writeArrayHeader(count: 3)
                        writer.write(encodedItem: row)
                        writer.writeNull()
                        writeWriter(&writer)
                    }
                }
            }
        }
        XCTAssertNoThrow(try SyncFrame(decoding: frame(table: nil) { $0.write(bytes: devices[0].publicKey) }))
        XCTAssertNoThrow(try SyncFrame(decoding: frame(table: devices) { $0.write(UInt64(1)) }))
        assertRejected(frame(table: nil) { $0.write(bytes: [1, 2, 3]) }, .unexpectedType)
        assertRejected(frame(table: nil) { $0.write(UInt64(0)) }, .unexpectedType)
        assertRejected(frame(table: devices) { $0.write(UInt64(2)) }, .malformedFrame)
        assertRejected(frame(table: devices) { $0.write(UInt64(3)) }, .malformedFrame)
        assertRejected(frame(table: devices) { $0.write(bytes: devices[0].publicKey) }, .unexpectedType)
        let sender = TestWorld.device(5)
        let known = try SyncFrame(decoding: frame(table: devices) { $0.write(UInt64(3)) }, account: account, sender: sender)
        guard case .reconcileResponse(let response) = known.body else { return XCTFail("a response") }
        XCTAssertEqual(response.rows.first?.writer, sender, "two past the table is the sender, to a reader that knows it")
    }

    /// Against a device table, the frame's sender travels as a one-byte reference when both ends
    /// know it: the table leaves it out, every vector, writer and delete version names it by
    /// `senderIndex`, and the frame reads back equal; a reader that does not know the sender
    /// refuses the reference, and a writer that does not know it lists the sender in the table.
    func testTheSendersDevicesTravelAsAReferenceToAReaderThatKnowsTheSender() throws {
        let devices = (0..<3).map(TestWorld.device).sorted()
        let sender = devices[1]
        let row = RecordNamespace.rowEncoding(of: .init(id: "a", value: "b", updatedAt: 4))
        let other = RecordNamespace.rowEncoding(of: .init(id: "a", value: "c", updatedAt: 4))
        let response = ReconcileResponse(namespace: "records", rows: [
            ShippedRow(row: row, vector: VersionVector([devices[0]: 1, sender: 2]),
                       siblings: [ShippedRow(row: other, vector: VersionVector([sender: 1]), writer: sender)], writer: sender),
            ShippedRow(row: row, vector: VersionVector([sender: 3]), contentVector: VersionVector([devices[2]: 1]), writer: devices[2]),
        ], tombstones: [Tombstone(key: [7], vector: VersionVector([sender: 4]))])
        let referenced = SyncFrame(account: account, schema: schema, body: .reconcileResponse(response), compactVectors: true, sender: sender)
        let listed = SyncFrame(account: account, schema: schema, body: .reconcileResponse(response), compactVectors: true)
        let decoded = try SyncFrame(decoding: referenced.encoded(), account: account, sender: sender)
        XCTAssertEqual(decoded.body, .reconcileResponse(response))
        XCTAssertEqual(decoded.encoded(), referenced.encoded(), "the decoded frame writes the same bytes")
        XCTAssertEqual(listed.encoded().count - referenced.encoded().count, 34, "the sender's 34-byte table entry is gone")
        XCTAssertEqual(DeviceTable(covering: response, sender: sender).devices, [devices[0], devices[2]])
        XCTAssertEqual(try SyncFrame(decoding: listed.encoded(), account: account).body, .reconcileResponse(response),
                       "a writer that does not know its sender lists it")
        assertRejected(referenced.encoded(), .malformedFrame)
    }

    func testAPushNamesItsReceiverByAReferenceThatOnlyAPushAndAReaderThatKnowsItselfRead() throws {
        let devices = (0..<3).map(TestWorld.device).sorted()
        let (sender, receiver) = (devices[1], devices[2])
        let row = RecordNamespace.rowEncoding(of: .init(id: "a", value: "b", updatedAt: 4))
        let response = ReconcileResponse(namespace: "records", rows: [
            ShippedRow(row: row, vector: VersionVector([receiver: 2, sender: 1]), writer: sender),
            ShippedRow(row: row, vector: VersionVector([devices[0]: 1, receiver: 1]), writer: receiver),
        ], tombstones: [Tombstone(key: [7], vector: VersionVector([receiver: 4]))])
        let root = [UInt8](repeating: 0x3c, count: StateDigest.setHashRootBytes)
        let referenced = SyncFrame(account: account, schema: schema, body: .push(response, root: root, change: 9), sender: sender,
                                   receiver: receiver)
        let listed = SyncFrame(account: account, schema: schema, body: .push(response, root: root, change: 9), sender: sender)
        let decoded = try SyncFrame(decoding: referenced.encoded(), account: account, sender: sender, receiver: receiver)
        XCTAssertEqual(decoded.body, referenced.body)
        XCTAssertEqual(decoded.encoded(), referenced.encoded(), "the decoded frame writes the same bytes")
        XCTAssertEqual(listed.encoded().count - referenced.encoded().count, 34, "the receiver's 34-byte table entry is gone")
        XCTAssertEqual(DeviceTable(covering: response, sender: sender, receiver: receiver).devices, [devices[0]])
        XCTAssertEqual(try SyncFrame(decoding: listed.encoded(), account: account, sender: sender, receiver: receiver).body,
                       referenced.body, "a table that lists the receiver reads as before")
        assertRejected(referenced.encoded(), .malformedFrame)
        XCTAssertThrowsError(try SyncFrame(decoding: referenced.encoded(), account: account, sender: sender)) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .malformedFrame, "a receiver reference without the receiver")
        }
        // A response never carries the reference: the same index there is out of the table.
        let response2 = SyncFrame(account: account, schema: schema, body: .reconcileResponse(response), compactVectors: true,
                                  sender: sender, receiver: receiver)
        XCTAssertEqual(try SyncFrame(decoding: response2.encoded(), account: account, sender: sender, receiver: receiver).body,
                       .reconcileResponse(response), "a response lists the receiver as any other device")
        let bytes = compactFrame(devices: [devices[0]], vector: [3, 1])
        XCTAssertThrowsError(try SyncFrame(decoding: bytes, account: account, sender: sender, receiver: receiver)) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .malformedFrame, "index 3 past a one-entry table of a response")
        }
    }

    /// A table may still list the sender (a writer that did not know its own device); a vector
    /// that then names the sender both by its entry and by the reference is refused as a repeat.
    func testRejectAVectorNamingTheSenderByItsEntryAndByTheReference() throws {
        let devices = (0..<2).map(TestWorld.device).sorted()
        let listed = try SyncFrame(decoding: compactFrame(devices: devices, vector: [0, 1, 1, 2]), account: account, sender: devices[1])
        guard case .reconcileResponse(let response) = listed.body else { return XCTFail("a response") }
        XCTAssertEqual(response.rows.first?.vector, VersionVector([devices[0]: 1, devices[1]: 2]))
        let twice = compactFrame(devices: devices, vector: [1, 1, 3, 2])
        XCTAssertThrowsError(try SyncFrame(decoding: twice, account: account, sender: devices[1])) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .malformedFrame, "one device named twice in one vector")
        }
        XCTAssertNoThrow(try SyncFrame(decoding: twice, account: account, sender: TestWorld.device(5)), "two devices when the sender is another")
    }

    /// Against a table a row is the positional array; the map an earlier build wrote against a
    /// table (vectors and writer by position) still reads, so a snapshot page it exported imports;
    /// an empty array is refused.
    func testRejectAnEmptyPositionalRowAndReadTheEarlierMapRowAgainstATable() throws {
        let row = RecordNamespace.rowEncoding(of: .init(id: "a", value: "b", updatedAt: 4))
        func frame(_ writeRow: @escaping (inout CanonicalWriter) -> Void) -> [UInt8] {
            frameBytes { map in
                map.entry("kind") { $0.write("reconcile_resp") }
                map.entry("ns") { $0.write("records") }
                map.entry("devices") { $0.writeArray([DeviceID]()) { $0.write(bytes: $1.publicKey) } }
                map.entry("rows") { writer in
                    writer.writeArrayHeader(count: 1)
                    writeRow(&writer)
                }
            }
        }
        XCTAssertNoThrow(try SyncFrame(decoding: frame { $0.writeArray([row]) { $0.write(encodedItem: $1) } }), "a row alone")
        let table = (0..<2).map(TestWorld.device).sorted()
        let earlier = frameBytes { map in
            map.entry("kind") { $0.write("reconcile_resp") }
            map.entry("ns") { $0.write("records") }
            map.entry("devices") { $0.writeArray(table) { $0.write(bytes: $1.publicKey) } }
            map.entry("rows") { writer in
                writer.writeArrayHeader(count: 1)
                writer.writeMap { entry in
                    entry.entry("r") { $0.write(encodedItem: row) }
                    entry.entry("v") { $0.writeArray([UInt64(0), 2, 2, 1]) { $0.write($1) } }
                    entry.entry("w") { $0.write(UInt64(1)) }
                }
            }
        }
        guard case .reconcileResponse(let response) = try SyncFrame(decoding: earlier).body else { return XCTFail("a response") }
        XCTAssertEqual(response.rows, [ShippedRow(row: row, vector: VersionVector([table[0]: 2, DeviceID.ownCreation: 1]), writer: table[1])])
        assertRejected(frame { $0.writeMap { entry in entry.entry("s") { $0.writeArrayHeader(count: 0) } } }, .missingField)
        assertRejected(frame { $0.writeArrayHeader(count: 0) }, .missingField)
    }

    func testRejectMoreThanSixteenCapabilities() throws {
        func frame(capabilities count: Int) -> [UInt8] {
            frameBytes { map in
                map.entry("kind") { $0.write("heartbeat") }
                map.entry("caps") { $0.writeArray((0..<count).map { "cap\($0)" }) { $0.write($1) } }
            }
        }
        XCTAssertEqual(try SyncFrame(decoding: frame(capabilities: 16)).capabilities.count, 16)
        assertRejected(frame(capabilities: 17), .malformedFrame)
        assertRejected(frame(capabilities: 1_000), .malformedFrame)
    }

    func testPushAndItsAcknowledgementRoundTripInBothForms() throws {
        let row = RecordNamespace.rowEncoding(of: .init(id: "a", value: "b", updatedAt: 4))
        let root = [UInt8](repeating: 0x3c, count: StateDigest.setHashRootBytes)
        let push = ReconcileResponse(namespace: "records", rows: [ShippedRow(row: row, vector: vector())],
                                     tombstones: [Tombstone(key: [1], vector: vector())])
        try roundTrip(.push(push, root: root, change: 12))
        try roundTrip(.push(ReconcileResponse(namespace: "records", rows: [], tombstones: [Tombstone(key: [2], vector: vector())]),
                            root: root, change: 0))
        try roundTrip(.push(ReconcileResponse(namespace: "records", rows: push.rows, tombstones: [], remaining: 3), root: root, change: 12))
        try roundTrip(.pushAck(namespace: "records", answer: .differs(pushChange: 12, root: root), change: 3, following: false))
        try roundTrip(.pushAck(namespace: "records", answer: .differs(pushChange: 0, root: root), change: UInt64(Int64.max), following: true))
        try roundTrip(.pushAck(namespace: "records", answer: .matched(pushChange: 12), change: 3, following: false))
        try roundTrip(.pushAck(namespace: "records", answer: .matched(pushChange: UInt64.max), change: 0, following: true))
        for compactHeader in [false, true] {
            let frame = SyncFrame(account: account, schema: schema, body: .push(push, root: root, change: 12),
                                  compactVectors: true, compactHeader: compactHeader)
            let decoded = try SyncFrame(decoding: frame.encoded())
            XCTAssertEqual(decoded.body, frame.body)
            XCTAssertTrue(decoded.compactVectors, "a push writes its vectors against a device table")
            XCTAssertEqual(decoded.encoded(), frame.encoded())
        }
    }

    func testRejectAPushCarryingWhatOnlyAnExchangeCarries() throws {
        let root = [UInt8](repeating: 0x3c, count: StateDigest.setHashRootBytes)
        func push(_ extra: (inout MapWriter) -> Void) -> [UInt8] {
            frameBytes { map in
                map.entry("kind") { $0.write("push") }
                map.entry("ns") { $0.write("records") }
                map.entry("rows") { $0.writeArrayHeader(count: 0) }
                map.entry("root") { $0.write(bytes: root) }
                map.entry("changes") { $0.write(UInt64(4)) }
                extra(&map)
            }
        }
        guard case .push(_, let decodedRoot, let change) = try SyncFrame(decoding: push { _ in }).body else {
            return XCTFail("a plain push decodes")
        }
        XCTAssertEqual(decodedRoot, root)
        XCTAssertEqual(change, 4)
        let refused = [
            ReconcileResponse(namespace: "records", rows: [], tombstones: [], want: [[1]]),
            ReconcileResponse(namespace: "records", rows: [], tombstones: [], wantPrefixes: [[1]]),
            ReconcileResponse(namespace: "records", rows: [], tombstones: [], isFinal: true),
            ReconcileResponse(namespace: "records", rows: [], tombstones: [],
                              listings: [RangeListing(range: KeyRange(lo: [], hi: nil), leaves: [])]),
        ]
        for response in refused {
            for compact in [false, true] {
                let frame = SyncFrame(account: account, schema: schema, body: .push(response, root: root, change: 1),
                                      compactVectors: compact, compactHeader: compact)
                assertRejected(frame.encoded(), .malformedFrame)
            }
        }
    }

    func testRejectAPushedRootOfAnotherLengthOrAChangeCounterThatIsNotOneInteger() throws {
        for kind in ["push", "push_ack"] {
            func frame(root: Int, counter: ((inout CanonicalWriter) -> Void)?) -> [UInt8] {
                frameBytes { map in
                    map.entry("kind") { $0.write(kind) }
                    map.entry("ns") { $0.write("records") }
                    if kind == "push" { map.entry("rows") { $0.writeArrayHeader(count: 0) } }
                    if kind == "push_ack" { map.entry("answers") { $0.write(UInt64(2)) } }
                    map.entry("root") { $0.write(bytes: [UInt8](repeating: 1, count: root)) }
                    if let counter { map.entry("changes") { counter(&$0) } }
                }
            }
            XCTAssertNoThrow(try SyncFrame(decoding: frame(root: StateDigest.setHashRootBytes) { $0.write(UInt64(1)) }), kind)
            for length in [0, StateDigest.setHashRootBytes - 1, StateDigest.setHashRootBytes + 1, 32] {
                assertRejected(frame(root: length) { $0.write(UInt64(1)) }, .unexpectedType)
            }
            assertRejected(frame(root: StateDigest.setHashRootBytes) { $0.writeArray([UInt64(1)]) { $0.write($1) } }, .unexpectedType)
            assertRejected(frame(root: StateDigest.setHashRootBytes) { $0.write("1") }, .unexpectedType)
            assertRejected(frame(root: StateDigest.setHashRootBytes, counter: nil), .missingField)
        }
        assertRejected(frameBytes { map in
            map.entry("kind") { $0.write("push_ack") }
            map.entry("answers") { $0.write(UInt64(2)) }
            map.entry("changes") { $0.write(UInt64(1)) }
            map.entry("root") { $0.write(bytes: [UInt8](repeating: 1, count: StateDigest.setHashRootBytes)) }
        }, .missingField)
    }

    func testAnAcknowledgementNamesThePushItAnswersWithTheRootOnlyWhenItDiffers() throws {
        func ack(root: Bool, answers: ((inout CanonicalWriter) -> Void)?) -> [UInt8] {
            frameBytes { map in
                map.entry("kind") { $0.write("push_ack") }
                map.entry("ns") { $0.write("records") }
                if let answers { map.entry("answers") { answers(&$0) } }
                map.entry("changes") { $0.write(UInt64(1)) }
                if root { map.entry("root") { $0.write(bytes: [UInt8](repeating: 1, count: StateDigest.setHashRootBytes)) } }
            }
        }
        XCTAssertEqual(try SyncFrame(decoding: ack(root: false) { $0.write(UInt64(9)) }).body,
                       .pushAck(namespace: "records", answer: .matched(pushChange: 9), change: 1, following: false))
        XCTAssertEqual(try SyncFrame(decoding: ack(root: true) { $0.write(UInt64(9)) }).body,
                       .pushAck(namespace: "records", answer: .differs(pushChange: 9, root: [UInt8](repeating: 1, count: 16)),
                                change: 1, following: false))
        assertRejected(ack(root: true, answers: nil), .missingField)
        assertRejected(ack(root: false, answers: nil), .missingField)
        assertRejected(ack(root: false) { $0.write(Int64(-1)) }, .unexpectedType)
        assertRejected(ack(root: false) { $0.write("9") }, .unexpectedType)
    }
}
