import Foundation
@testable import SyncKernel
import SyncKernelSimulator
import XCTest

/// The compact frame form two sketch replicas use once each has announced
/// `SyncFrame.compactCapability`: one-letter keys, a kind code and an 8-byte account tag
/// (`FrameKey`). Every kind round-trips; the encodings are pinned against
/// `Fixtures/frames/compact_<case>.golden` (generated from the cases below, rewritten only with a new capability);
/// a frame of another account, an unknown kind code or a malformed header is refused with a
/// typed error before the body is read; and a spec frame reads exactly as before, whatever
/// one-letter keys it also carries.
final class CompactFrameTests: XCTestCase {
    private static let schema = GoldenFrameTests.schema
    private static let account = GoldenFrameTests.account

    /// The compact golden cases: every kind, with capabilities, a device table and `final`.
    static func frames() throws -> [(name: String, frame: SyncFrame)] {
        let (first, second, _) = try GoldenFrameTests.devices()
        let symbols = [CodedSymbol(count: 300, keySum: [0x10, 0x01, 0x02], tagSum: 0x0102_0304),
                       CodedSymbol(count: -1, keySum: [0x03], tagSum: 7)]
        let oneLength = [CodedSymbol(count: 3, keySum: [0x02, 0xaa, 0xbb], tagSum: 0x0a0b_0c0d),
                         CodedSymbol(count: 2, keySum: [0x00, 0xcc], tagSum: 0x1122_3344),
                         CodedSymbol(count: -1, keySum: [0x02, 0x00, 0xdd], tagSum: 0xffff_0001)]
        let response = ReconcileResponse(namespace: "records",
                                         rows: [ShippedRow(row: GoldenFrameTests.rowA(), vector: VersionVector([first: 3, second: 1]))],
                                         tombstones: [Tombstone(key: [0x05], vector: VersionVector([second: 2]))],
                                         want: [[0x01, 0x02]], isFinal: true)
        let compare = RangeCompare(namespace: "records", nodes: [
            RangeCompare.NodeFingerprint(node: PrefixNode.root.children[3], fingerprint: RangeFingerprint(itemHash: [UInt8](repeating: 9, count: 32))),
        ])
        func frame(_ body: SyncFrame.Body, capabilities: [String] = []) -> SyncFrame {
            SyncFrame(account: account, schema: schema, body: body, capabilities: capabilities, compactVectors: true, compactHeader: true)
        }
        return [
            ("compact_heartbeat", frame(.heartbeat, capabilities: [SyncFrame.sketchCapability, SyncFrame.compactCapability])),
            ("compact_state_digest", frame(.stateDigest(digest: GoldenFrameTests.digest().encoded(), probe: true, changes: [1, 300]))),
            ("compact_reconcile_req", frame(.reconcileRequest(ReconcileRequest(namespace: "records", buckets: [], keys: [[0x01]])))),
            ("compact_reconcile_resp", frame(.reconcileResponse(response))),
            ("compact_sketch_req", frame(.sketch(SketchRequest(namespace: "records", root: [UInt8](repeating: 0x5a, count: 32), symbols: symbols)))),
            ("compact_sketch_req_residues", frame(.sketch(SketchRequest(
                namespace: "records", root: [UInt8](repeating: 0x5a, count: 32),
                symbols: symbols + [CodedSymbol(count: 5, keySum: [], tagSum: 0), CodedSymbol(count: -128, keySum: [0x01, 0x02], tagSum: 1)],
                countResidues: true)))),
            ("compact_sketch_req_implied", frame(.sketch(SketchRequest(
                namespace: "records", root: [UInt8](repeating: 0x5a, count: 32), symbols: oneLength, countResidues: true)))),
            ("compact_range_req", frame(.rangeCompare(compare))),
            ("compact_push", frame(.push(ReconcileResponse(namespace: "records", rows: response.rows, tombstones: response.tombstones),
                                         root: [UInt8](repeating: 0x6b, count: StateDigest.setHashRootBytes), change: 301))),
            ("compact_push_parts", frame(.push(ReconcileResponse(namespace: "records", rows: response.rows, tombstones: [], remaining: 2),
                                               root: [UInt8](repeating: 0x6b, count: StateDigest.setHashRootBytes), change: 301))),
            ("compact_push_ack", frame(.pushAck(namespace: "records", answer: .differs(pushChange: 300, root: [UInt8](repeating: 0x6c, count: StateDigest.setHashRootBytes)),
                                                change: 7, following: true))),
            ("compact_push_ack_matched", frame(.pushAck(namespace: "records", answer: .matched(pushChange: 301), change: 7, following: false))),
        ]
    }

    func testEveryKindEncodesToItsGoldenCompactBytesAndDecodesBack() throws {
        let cases = try CompactFrameTests.frames()
        XCTAssertEqual(Set(cases.map { $0.frame.body.kind }),
                       ["heartbeat", "state_digest", "reconcile_req", "reconcile_resp", "sketch_req", "range_req", "push", "push_ack"])
        for (name, frame) in cases {
            let recorded = try FrameFixture.recordedBytes(name)
            XCTAssertEqual(Hex.encode(frame.encoded()), Hex.encode(recorded), "\(name): encoding differs from the fixture")
            let decoded = try SyncFrame(decoding: recorded, account: CompactFrameTests.account)
            XCTAssertEqual(decoded, frame, "\(name): the fixture decodes to another frame")
            XCTAssertTrue(decoded.compactHeader, name)
            let untagged = try SyncFrame(decoding: recorded)
            XCTAssertEqual(untagged.account, SyncFrame.accountTag(of: CompactFrameTests.account), "\(name): decoded with no account, the tag")
            XCTAssertEqual(untagged.body, frame.body, name)
            XCTAssertEqual(untagged.encoded(), recorded, "\(name): a frame decoded with no account re-encodes the same")
        }
    }

    /// A compact push and its acknowledgement written with the schema's namespace names.
    static func positionalFrames() throws -> [(name: String, frame: SyncFrame)] {
        let (first, _, _) = try GoldenFrameTests.devices()
        let rows = [ShippedRow(row: GoldenFrameTests.rowA(), vector: VersionVector([first: 3]))]
        func frame(_ body: SyncFrame.Body) -> SyncFrame {
            SyncFrame(account: account, schema: schema, body: body, compactVectors: true, compactHeader: true, sender: first,
                      positions: positions)
        }
        return [
            ("compact_push_positional", frame(.push(ReconcileResponse(namespace: "records", rows: rows, tombstones: []),
                                                    root: [UInt8](repeating: 0x6b, count: StateDigest.setHashRootBytes), change: 301))),
            ("compact_push_ack_positional", frame(.pushAck(namespace: "records", answer: .matched(pushChange: 301), change: 7,
                                                           following: false))),
        ]
    }

    /// The namespace names the positional cases are written with: "records" is position 1.
    static let positions = NamespacePositions(schema: schema, names: ["messages", "records"])

    func testACompactPushNamesItsNamespaceByPositionUnderItsOwnSchemaOnly() throws {
        let (first, _, _) = try GoldenFrameTests.devices()
        for (name, frame) in try CompactFrameTests.positionalFrames() {
            let recorded = try FrameFixture.recordedBytes(name)
            XCTAssertEqual(Hex.encode(frame.encoded()), Hex.encode(recorded), "\(name): encoding differs from the fixture")
            let named = SyncFrame(account: frame.account, schema: frame.schema, body: frame.body, compactVectors: true, compactHeader: true,
                                  sender: first)
            XCTAssertEqual(named.encoded().count, recorded.count + "records".utf8.count, "\(name): the position saves the name's bytes")
            let decoded = try SyncFrame(decoding: recorded, account: CompactFrameTests.account, sender: first,
                                        positions: CompactFrameTests.positions)
            XCTAssertEqual(decoded.body, frame.body, name)
            XCTAssertEqual(try SyncFrame(decoding: named.encoded(), account: CompactFrameTests.account, sender: first,
                                         positions: CompactFrameTests.positions).body, frame.body, "\(name): a name reads as before")
            let other = SchemaFingerprint(value: CompactFrameTests.schema.value ^ 1)
            for positions in [nil, NamespacePositions(schema: other, names: CompactFrameTests.positions.names),
                              NamespacePositions(schema: CompactFrameTests.schema, names: ["messages"])] {
                XCTAssertThrowsError(try SyncFrame(decoding: recorded, account: CompactFrameTests.account, sender: first,
                                                   positions: positions), name) { error in
                    XCTAssertEqual((error as? SyncKernelError)?.code, .malformedFrame, "\(name): \(error)")
                }
            }
        }
        // The spec's form never writes a position, whatever the writer knows.
        let (_, frame) = try XCTUnwrap(CompactFrameTests.positionalFrames().first)
        let spec = SyncFrame(account: frame.account, schema: frame.schema, body: frame.body, compactVectors: true, sender: first,
                             positions: CompactFrameTests.positions)
        XCTAssertEqual(try SyncFrame(decoding: spec.encoded(), sender: first).body, frame.body)
    }

    func testACompactFrameIsSmallerThanTheSpecFormOfTheSameFrame() throws {
        for (name, frame) in try CompactFrameTests.frames() {
            let spec = SyncFrame(account: frame.account, schema: frame.schema, body: frame.body, capabilities: frame.capabilities,
                                 compactVectors: frame.compactVectors)
            XCTAssertFalse(try SyncFrame(decoding: spec.encoded()).compactHeader, name)
            XCTAssertLessThanOrEqual(frame.encoded().count + 60, spec.encoded().count, "\(name): the header saves at least 60 bytes")
        }
    }

    func testRejectACompactFrameOfAnotherAccountBeforeItsBody() throws {
        let other = [UInt8](repeating: 0x01, count: 32)
        for (name, frame) in try CompactFrameTests.frames() {
            XCTAssertThrowsError(try SyncFrame(decoding: frame.encoded(), account: other), name) { error in
                XCTAssertEqual((error as? SyncKernelError)?.code, .foreignAccount, "\(name): \(error)")
            }
        }
        // The account is checked before the kind and the body: a garbage body of another account
        // is refused as foreign, not as malformed.
        let garbage = compactBytes(kind: 99, tag: SyncFrame.accountTag(of: other)) { map in map.entry("r") { $0.write("not rows") } }
        XCTAssertThrowsError(try SyncFrame(decoding: garbage, account: CompactFrameTests.account)) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .foreignAccount, "\(error)")
        }
    }

    func testRejectAnUnknownKindCodeAndMalformedCompactHeaders() {
        let tag = SyncFrame.accountTag(of: CompactFrameTests.account)
        assertRejected(compactBytes(kind: 0, tag: tag), .unknownFrameKind)
        assertRejected(compactBytes(kind: 9, tag: tag), .unknownFrameKind)
        assertRejected(compactBytes(kind: nil, tag: tag), .missingField)
        assertRejected(compactBytes(kind: 4, tag: nil), .missingField)
        assertRejected(compactBytes(kind: 4, tag: tag, schema: false), .missingField)
        assertRejected(compactBytes(kind: 4, tag: Array(tag.prefix(7))), .unexpectedType)
        assertRejected(compactBytes(kind: 4, tag: tag + [0]), .unexpectedType)
        assertRejected(compactBytes(kind: 3, tag: tag) { map in map.entry("n") { $0.write("records") } }, .missingField)
        var writer = CanonicalWriter()
        writer.writeMap { map in
            map.entry("k") { $0.write("heartbeat") }
            map.entry("a") { $0.write(bytes: tag) }
            map.entry("s") { $0.write(CompactFrameTests.schema.value) }
        }
        assertRejected(writer.bytes, .unexpectedType)
        XCTAssertNoThrow(try SyncFrame(decoding: compactBytes(kind: 4, tag: tag), account: CompactFrameTests.account))
    }

    func testASpecFrameWithOneLetterKeysReadsAsTheSpecsAndIgnoresThem() throws {
        let tag = SyncFrame.accountTag(of: CompactFrameTests.account)
        var writer = CanonicalWriter()
        writer.writeMap { map in
            map.entry("type") { $0.write(SyncFrame.payloadType) }
            map.entry("kind") { $0.write("heartbeat") }
            map.entry("account") { $0.write(bytes: CompactFrameTests.account) }
            map.entry("schema") { $0.write(CompactFrameTests.schema.value) }
            map.entry("k") { $0.write(UInt64(1)) }
            map.entry("a") { $0.write(bytes: tag) }
            map.entry("d") { $0.write(bytes: [1, 2, 3]) }
        }
        let frame = try SyncFrame(decoding: writer.bytes, account: CompactFrameTests.account)
        XCTAssertEqual(frame.body, .heartbeat)
        XCTAssertFalse(frame.compactHeader)
        XCTAssertEqual(frame.account, CompactFrameTests.account)
    }

    func testRejectCompactSketchSymbolsThatAreNotExactlyWhatTheEncoderWrites() throws {
        let symbols = [CodedSymbol(count: 300, keySum: [0x10, 0x01, 0x02], tagSum: 9), CodedSymbol(count: -1, keySum: [0x03], tagSum: 7)]
        let good = SketchCodec.encodeCompact(symbols, countResidues: true)
        func decode(_ bytes: [UInt8], maxSymbols: Int = 16) throws(SyncKernelError) -> [CodedSymbol] {
            var budget = DecodeBudget(inputBytes: bytes.count)
            return try SketchCodec.decodeCompact(bytes, in: 0..<bytes.count, maxSymbols: maxSymbols, budget: &budget).symbols
        }
        XCTAssertEqual(try decode(good), symbols)
        XCTAssertEqual(Array(good.prefix(3)), [2, 3, 3], "two symbols, residues and one width (6 bytes, as the lengths take), width 3")
        var cases: [(String, [UInt8])] = []
        let tag = [UInt8](repeating: 0, count: CodedSymbol.tagBytes)
        cases.append(("truncated", Array(good.dropLast())))
        cases.append(("trailing byte", good + [0]))
        var form = good
        form[1] = 8
        cases.append(("a form byte with a fourth bit", form))
        var wide = good
        wide[2] = 4
        cases.append(("a width past every key sum", wide))
        var widthOverMax: [UInt8] = [1, 2]
        LEB128.append(UInt64(CodedSymbol.maxKeySumBytes + 1), to: &widthOverMax)
        cases.append(("a width past maxKeySumBytes", widthOverMax + [0] + [UInt8](repeating: 1, count: CodedSymbol.maxKeySumBytes + 5)))
        cases.append(("a non-minimal count", [1, 0, 0x80, 0x00, 0] + tag))
        cases.append(("nothing after the symbol count", [1]))
        cases.append(("a key sum with its length ending in zero", [1, 0, 0, 1, 0x00] + tag))
        cases.append(("padding where the lengths are shorter",
                      [4, 2, 3, 0, 1, 2, 3] + tag + [0, 0, 0, 0] + tag + [0, 0, 0, 0] + tag + [0, 0, 0, 0] + tag))
        cases.append(("lengths where padding is no longer", [2, 0, 0, 3, 1, 2, 3] + tag + [0, 3, 4, 5, 6] + tag))
        for (label, bytes) in cases {
            XCTAssertThrowsError(try decode(bytes), label) { error in
                XCTAssertEqual((error as? SyncKernelError)?.code, .malformedFrame, "\(label): \(error)")
            }
        }
        XCTAssertThrowsError(try decode(good, maxSymbols: 1)) { XCTAssertEqual(($0 as? SyncKernelError)?.code, .malformedFrame) }
        XCTAssertEqual(try decode([4, 0, 0, 3, 1, 2, 3] + tag + [0, 0] + tag + [0, 0] + tag + [0, 0] + tag).count, 4,
                       "a sparse sketch in the length form is the canonical one")
        XCTAssertEqual(try decode([0]), [], "no symbol: nothing else follows")
        XCTAssertThrowsError(try decode([0, 0])) { XCTAssertEqual(($0 as? SyncKernelError)?.code, .malformedFrame) }
    }

    /// The implied key length: one byte written once instead of every padded key sum's first
    /// byte, set exactly when every such byte is `L` for an odd count and 0 for an even one.
    func testAnImpliedKeyLengthSavesAByteASymbolAndRoundTrips() throws {
        let tag: [UInt8] = [0, 0, 0, 9]
        let symbols = [CodedSymbol(count: 1, keySum: [2, 0xaa, 0xbb], tagSum: 9), CodedSymbol(count: 3, keySum: [2, 0xcc], tagSum: 9),
                       CodedSymbol(count: 2, keySum: [0, 0xdd, 0xee], tagSum: 9), CodedSymbol(count: -4, keySum: [], tagSum: 9)]
        let implied: [UInt8] = [4, 6, 3, 2, 0x02, 0xaa, 0xbb] + tag + [0x06, 0xcc, 0] + tag + [0x04, 0xdd, 0xee] + tag + [0x07, 0, 0] + tag
        XCTAssertEqual(SketchCodec.encodeCompact(symbols, countResidues: false), implied)
        XCTAssertEqual(try decodeSymbols(implied), symbols)
        let residues = SketchCodec.encodeCompact(symbols, countResidues: true)
        XCTAssertEqual(residues, [4, 7, 3, 2, 0x02, 0xaa, 0xbb] + tag + [0x03, 0xcc, 0] + tag + [0x02, 0xdd, 0xee] + tag + [0xfc, 0, 0] + tag,
                       "a residue has its count's parity")
        XCTAssertEqual(try decodeSymbols(residues), symbols)

        var random = SeededGenerator(seed: 6)
        var sketch = RatelessSketch(capacity: 40)
        for _ in 0..<200 { sketch.apply(SketchItem(key: random.bytes(16), itemHash: random.bytes(32)), direction: 1) }
        let dense = SketchCodec.encodeCompact(sketch.symbols, countResidues: true)
        XCTAssertEqual(dense[1], 7, "keys of one length: residues, padding and an implied length")
        XCTAssertEqual(dense.count, 4 + 1 + 40 * (1 + 16 + CodedSymbol.tagBytes),
                       "symbol count, form, width, length; the first count's second byte; 16 of 17 key-sum bytes a symbol")
        XCTAssertEqual(try decodeSymbols(dense, maxSymbols: 64).map(\.keySum), sketch.symbols.map(\.keySum))
        sketch.apply(SketchItem(key: random.bytes(15), itemHash: random.bytes(32)), direction: 1)
        XCTAssertEqual(SketchCodec.encodeCompact(sketch.symbols, countResidues: true)[1], 3, "one key of another length: no implied length")

        for round in 0..<300 {
            var mixed = RatelessSketch(capacity: 1 + Int(random.next() % 24))
            let lengths = random.next() % 2 == 0 ? [Int(random.next() % 130)] : [3, 4, 200]
            for _ in 0..<Int(random.next() % 60) {
                let length = lengths[Int(random.next() % UInt64(lengths.count))]
                mixed.apply(SketchItem(key: random.bytes(length), itemHash: random.bytes(32)), direction: random.next() % 3 == 0 ? -1 : 1)
            }
            for residue in [false, true] {
                let bytes = SketchCodec.encodeCompact(mixed.symbols, countResidues: residue)
                let decoded = try decodeSymbols(bytes, maxSymbols: 64)
                XCTAssertEqual(decoded.map(\.keySum), mixed.symbols.map(\.keySum), "round \(round)")
                XCTAssertEqual(decoded.map(\.tagSum), mixed.symbols.map(\.tagSum), "round \(round)")
                XCTAssertEqual(decoded.map { $0.count & 0xff }, mixed.symbols.map { $0.count & 0xff }, "round \(round)")
            }
        }
    }

    func testRejectAnImpliedKeyLengthWhereItDoesNotApply() {
        let tag = [UInt8](repeating: 0, count: CodedSymbol.tagBytes)
        let cases: [(String, [UInt8])] = [
            ("an implied length without padding", [1, 4, 0x02, 1, 0x05] + tag),
            ("an implied length with residues and no padding", [1, 5, 0x02, 1, 0x05] + tag),
            ("an implied length over a width of 0", [1, 6, 0, 0, 0x02] + tag),
            ("an implied length of two LEB128 bytes", [1, 6, 2, 0x80, 0x02, 0x05] + tag),
            ("an implied length and no byte left for it", [1, 6, 2]),
            ("an implied length with no odd count", [1, 6, 2, 2, 0x04, 0x05] + tag),
            ("an implied length where the length form is shorter",
             [4, 6, 3, 2, 0x02, 1, 2] + tag + [0x00, 0, 0] + tag + [0x00, 0, 0] + tag + [0x00, 0, 0] + tag),
            ("an implied length under a width no key sum fills", [1, 6, 3, 1, 0x02, 0x05, 0x00] + tag),
        ]
        for (label, bytes) in cases {
            XCTAssertThrowsError(try decodeSymbols(bytes), label) { error in
                XCTAssertEqual((error as? SyncKernelError)?.code, .malformedFrame, "\(label): \(error)")
            }
        }
        XCTAssertEqual(try decodeSymbols([1, 6, 2, 2, 0x02, 0x05] + tag), [CodedSymbol(count: 1, keySum: [2, 5])],
                       "the same symbol with an odd count reads")
    }

    func testRejectTheLongFormWhereAnImpliedKeyLengthApplies() throws {
        let tag = [UInt8](repeating: 0, count: CodedSymbol.tagBytes)
        let long: [UInt8] = [3, 2, 3, 0x02, 2, 0xaa, 0xbb] + tag + [0x06, 2, 0xcc, 0] + tag + [0x04, 0, 0xdd, 0xee] + tag
        XCTAssertThrowsError(try decodeSymbols(long)) { XCTAssertEqual(($0 as? SyncKernelError)?.code, .malformedFrame) }
        var residues = long
        residues[1] = 3
        residues[3 + 1 + 3 + tag.count] = 0x03
        residues[3 + 2 * (1 + 3 + tag.count)] = 0x02
        XCTAssertThrowsError(try decodeSymbols(residues)) { XCTAssertEqual(($0 as? SyncKernelError)?.code, .malformedFrame) }
        let short: [UInt8] = [3, 6, 3, 2, 0x02, 0xaa, 0xbb] + tag + [0x06, 0xcc, 0] + tag + [0x04, 0xdd, 0xee] + tag
        XCTAssertEqual(try decodeSymbols(short).count, 3, "the short form of the same symbols reads")
        XCTAssertThrowsError(try decodeSymbols([1, 2, 1, 0x02, 0x05] + tag), "one odd symbol of one byte") {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .malformedFrame)
        }
        XCTAssertEqual(try decodeSymbols([1, 6, 1, 5, 0x02] + tag), [CodedSymbol(count: 1, keySum: [5])])
    }

    /// Compact sketches carry 4-byte tag sums in every form; an earlier build's 8-byte ones (bits
    /// above 32 set here) are refused whether the key sums carry lengths, are padded, or imply one.
    func testRejectCompactTagSumsWiderThan32Bits() throws {
        let narrow: [UInt8] = [0, 0, 0, 7]
        let wide: [UInt8] = [0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 7]
        let cases: [(String, ([UInt8]) -> [UInt8])] = [
            ("lengths", { [3, 0, 0x02, 3, 1, 2, 3] + $0 + [0x00, 0] + $0 + [0x00, 0] + $0 }),
            ("padded", { [1, 2, 1, 0x04, 0x05] + $0 }),
            ("padded, two symbols", { [2, 2, 1, 0x04, 0x05] + $0 + [0x04, 0x06] + $0 }),
            ("implied", { [1, 6, 1, 5, 0x02] + $0 }),
            ("implied, two symbols", { [2, 6, 1, 5, 0x02] + $0 + [0x06] + $0 }),
        ]
        for (label, bytes) in cases {
            XCTAssertNoThrow(try decodeSymbols(bytes(narrow)), label)
            XCTAssertThrowsError(try decodeSymbols(bytes(wide)), label) {
                XCTAssertEqual(($0 as? SyncKernelError)?.code, .malformedFrame, label)
            }
        }
    }

    /// Decodes a compact run of symbols filling `bytes`.
    private func decodeSymbols(_ bytes: [UInt8], maxSymbols: Int = 16) throws(SyncKernelError) -> [CodedSymbol] {
        var budget = DecodeBudget(inputBytes: bytes.count)
        return try SketchCodec.decodeCompact(bytes, in: 0..<bytes.count, maxSymbols: maxSymbols, budget: &budget).symbols
    }

    /// Residue counts restored against the receiver's own symbols are the sender's counts
    /// whenever at most `maxResidueItems` items differ, and otherwise never decode to a wrong
    /// difference: a sketch either decodes to the true one or fails (and the exchange falls back).
    func testResidueCountsRestoreExactlyForSmallDifferencesAndNeverMisleadForLargeOnes() throws {
        let seed: UInt64 = 0x0e51_d0e5
        var random = SeededGenerator(seed: seed)
        func item() -> SketchItem { SketchItem(key: random.bytes(16), itemHash: random.bytes(32)) }
        var shared = RatelessSketch(capacity: 512)
        for _ in 0..<3_000 { shared.apply(item(), direction: 1) }
        for (remoteOnly, localOnly) in [(0, 1), (1, 0), (60, 67), (127, 0), (0, 127), (200, 0), (0, 400), (150, 150)] {
            var remote = shared
            var local = shared
            var truthRemote: [SketchItem] = []
            var truthLocal: [SketchItem] = []
            for _ in 0..<remoteOnly { let next = item(); truthRemote.append(next); remote.apply(next, direction: 1) }
            for _ in 0..<localOnly { let next = item(); truthLocal.append(next); local.apply(next, direction: 1) }
            let label = "seed \(seed), \(remoteOnly) remote and \(localOnly) local items"
            let request = SketchRequest(namespace: "records", root: [UInt8](repeating: 1, count: 32), symbols: remote.symbols, countResidues: true)
            let frame = SyncFrame(account: CompactFrameTests.account, schema: CompactFrameTests.schema, body: .sketch(request),
                                  compactHeader: true)
            guard case .sketch(let received) = try SyncFrame(decoding: frame.encoded(), account: CompactFrameTests.account).body else {
                return XCTFail(label)
            }
            XCTAssertTrue(received.countResidues, label)
            let restored = received.restoringCounts(from: local.symbols[...])
            let decoded = SketchDecoder.decode(remote: restored, local: local.symbols[...])
            if remoteOnly + localOnly <= SketchRequest.maxResidueItems {
                XCTAssertEqual(restored, remote.symbols, "\(label): every count restored")
                XCTAssertEqual(decoded?.remoteOnly.count, remoteOnly, label)
                XCTAssertEqual(decoded?.localOnly.count, localOnly, label)
            } else if let decoded {
                XCTAssertEqual(Set(decoded.remoteOnly), Set(truthRemote), "\(label): a decode is the true difference")
                XCTAssertEqual(Set(decoded.localOnly), Set(truthLocal), label)
            }
        }
        let plain = SketchRequest(namespace: "records", root: [UInt8](repeating: 1, count: 32), symbols: shared.symbols)
        XCTAssertEqual(plain.restoringCounts(from: shared.symbols[...]), shared.symbols, "without residues nothing changes")
    }

    func testASparseSketchKeepsItsEmptyKeySumsEmpty() throws {
        var random = SeededGenerator(seed: 5)
        var sketch = RatelessSketch(capacity: 64)
        for _ in 0..<2 { sketch.apply(SketchItem(key: random.bytes(40), itemHash: random.bytes(32)), direction: 1) }
        let encoded = SketchCodec.encodeCompact(sketch.symbols, countResidues: false)
        XCTAssertEqual(encoded[1] & 2, 0, "the length form: most of the 64 key sums are empty")
        XCTAssertLessThanOrEqual(encoded.count, SketchCodec.encode(sketch.symbols).count + 1, "at most the form byte more")
        var budget = DecodeBudget(inputBytes: encoded.count)
        XCTAssertEqual(try SketchCodec.decodeCompact(encoded, in: 0..<encoded.count, maxSymbols: 64, budget: &budget).symbols, sketch.symbols)
    }

    func testASketchSentInTheSpecsFormCarriesFullCountsWhateverItAsks() throws {
        var random = SeededGenerator(seed: 3)
        var sketch = RatelessSketch(capacity: 64)
        for _ in 0..<1_000 { sketch.apply(SketchItem(key: random.bytes(16), itemHash: random.bytes(32)), direction: 1) }
        let request = SketchRequest(namespace: "records", root: [UInt8](repeating: 1, count: 32), symbols: Array(sketch.symbols.prefix(30)), countResidues: true)
        let spec = SyncFrame(account: CompactFrameTests.account, schema: CompactFrameTests.schema, body: .sketch(request))
        guard case .sketch(let received) = try SyncFrame(decoding: spec.encoded()).body else { return XCTFail("a sketch") }
        XCTAssertFalse(received.countResidues)
        XCTAssertEqual(received.symbols, request.symbols)
        let compact = SyncFrame(account: CompactFrameTests.account, schema: CompactFrameTests.schema, body: .sketch(request), compactHeader: true)
        XCTAssertLessThan(compact.encoded().count + 29 * 2, spec.encoded().count, "residues and one key-sum width save bytes on every symbol")
    }

    /// A compact frame's bytes: `kind` and `tag` when given, the schema unless `schema` is false,
    /// then `build`'s entries.
    private func compactBytes(kind: UInt64?, tag: [UInt8]?, schema: Bool = true,
                              _ build: (inout MapWriter) -> Void = { _ in }) -> [UInt8] {
        var writer = CanonicalWriter()
        writer.writeMap { map in
            if let kind { map.entry("k") { $0.write(kind) } }
            if let tag { map.entry("a") { $0.write(bytes: tag) } }
            if schema { map.entry("s") { $0.write(CompactFrameTests.schema.value) } }
            build(&map)
        }
        return writer.bytes
    }

    private func assertRejected(_ bytes: [UInt8], _ code: SyncKernelError.Code, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try SyncFrame(decoding: bytes, account: CompactFrameTests.account), file: file, line: line) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, code, "\(error)", file: file, line: line)
        }
    }
}
