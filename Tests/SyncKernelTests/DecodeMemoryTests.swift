import Foundation
import SyncKernel
import SyncKernelSimulator
import XCTest

/// Decoding memory: what the CBOR reader, the frame decoder and `decodeRow` keep is charged to a
/// `DecodeBudget` of 4 bytes per input byte plus `DecodeBudget.slack`, hostile shapes that would
/// keep more are refused with `limitExceeded`, and the largest legitimate frames of each kind
/// still decode (one byte more is refused).
final class DecodeMemoryTests: XCTestCase {
    private let account = [UInt8](repeating: 0xab, count: 32)
    private let schema = SchemaFingerprint(value: 7)

    private func assertLimitExceeded<T>(_ body: @autoclosure () throws -> T, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .limitExceeded, "\(error)", file: file, line: line)
        }
    }

    /// `count` copies of `item` in one array.
    private func array(_ count: Int, of item: [UInt8]) -> [UInt8] {
        var writer = CanonicalWriter(reservingCapacity: count * item.count + 9)
        writer.writeArrayHeader(count: count)
        for _ in 0..<count { writer.write(encodedItem: item) }
        return writer.bytes
    }

    /// A frame map with the common keys and those `extra` adds.
    private func frame(kind: String, _ extra: (inout MapWriter) -> Void) -> [UInt8] {
        var writer = CanonicalWriter()
        writer.writeMap { map in
            map.entry("type") { $0.write(SyncFrame.payloadType) }
            map.entry("kind") { $0.write(kind) }
            map.entry("account") { $0.write(bytes: account) }
            map.entry("schema") { $0.write(schema.value) }
            extra(&map)
        }
        return writer.bytes
    }

    // MARK: The CBOR reader

    func testRejectATreeOfAMillionTinyItems() {
        assertLimitExceeded(try CBORReader.decode(array(1 << 20, of: [0x00])))
    }

    func testRejectDeepNestingRepeatedPastTheBudget() {
        assertLimitExceeded(try CBORReader.decode(array(40_000, of: [UInt8](repeating: 0x81, count: 23) + [0x00])))
    }

    func testRejectManyShortByteStrings() {
        assertLimitExceeded(try CBORReader.decode(array(500_000, of: [0x41, 0x07])))
    }

    func testRejectTheMillionEntryMap() {
        var writer = CanonicalWriter(reservingCapacity: 6_000_000)
        writer.write(encodedItem: [0xba, 0x00, 0x0f, 0x42, 0x40])
        for key in 0..<1_000_000 {
            writer.write(UInt64(key))
            writer.write(UInt64(key % 24))
        }
        assertLimitExceeded(try CBORReader.decode(writer.bytes))
        assertLimitExceeded(try RecordNamespace.decodeRow(bytes: writer.bytes))
    }

    func testALongByteStringDecodesAndKeepsAboutItsOwnSize() throws {
        var writer = CanonicalWriter()
        writer.write(bytes: [UInt8](repeating: 0x5a, count: 8 << 20))
        var budget = DecodeBudget(inputBytes: writer.bytes.count)
        let value = try CBORReader.decode(writer.bytes, budget: &budget)
        XCTAssertEqual(try value.bytes().count, 8 << 20)
        XCTAssertLessThan(budget.charged, writer.bytes.count + 4096)
    }

    func testTheTreeIsChargedNodeByNode() throws {
        let bytes = array(1000, of: [0x58, 100] + [UInt8](repeating: 1, count: 100))
        var budget = DecodeBudget(inputBytes: bytes.count)
        _ = try CBORReader.decode(bytes, budget: &budget)
        let box = DecodeBudget.heapBytes(16 + 8)
        let expected = box + DecodeBudget.arrayBytes(stride: MemoryLayout<CBORValue>.stride, count: 1000)
            + 1000 * (box + DecodeBudget.arrayBytes(stride: 1, count: 100))
        XCTAssertEqual(budget.charged, expected)
        XCTAssertLessThanOrEqual(budget.charged, budget.limit)
    }

    func testTheBudgetIsFourBytesPerInputBytePlusTheSlack() {
        XCTAssertEqual(DecodeBudget(inputBytes: 0).limit, DecodeBudget.slack)
        XCTAssertEqual(DecodeBudget(inputBytes: 1000).limit, 4000 + DecodeBudget.slack)
        XCTAssertEqual(DecodeBudget.heapBytes(1), 32)
        XCTAssertEqual(DecodeBudget.heapBytes(48), 64)
        XCTAssertEqual(DecodeBudget.arrayBytes(stride: 1, count: 0), 0)
    }

    // MARK: The frame decoder

    func testRejectA63MiBFrameOnItsSizeBeforeReadingIt() {
        var bytes = frame(kind: "heartbeat") { map in map.entry("zz") { $0.write(bytes: []) } }
        bytes += [UInt8](repeating: 0, count: 63 << 20)
        assertLimitExceeded(try SyncFrame(decoding: bytes))
    }

    func testTinyItemsUnderAnUnknownKeyAreSkippedWithoutKeepingThem() throws {
        let bytes = frame(kind: "heartbeat") { map in map.entry("zz") { $0.write(encodedItem: array(1 << 20, of: [0x00])) } }
        var budget = DecodeBudget(inputBytes: bytes.count)
        XCTAssertEqual(try SyncFrame(decoding: bytes, budget: &budget).body, .heartbeat)
        XCTAssertLessThan(budget.charged, 4096)
    }

    func testAValidFrameOfRowsMadeOfTinyItemsKeepsTheRowBytesOnly() throws {
        let row = array(1 << 20, of: [0x00])
        let bytes = frame(kind: "reconcile_resp") { map in
            map.entry("ns") { $0.write("records") }
            map.entry("rows") { writer in
                writer.writeArrayHeader(count: 4)
                for _ in 0..<4 { writer.writeMap { $0.entry("r") { $0.write(encodedItem: row) } } }
            }
        }
        var budget = DecodeBudget(inputBytes: bytes.count)
        let decoded = try SyncFrame(decoding: bytes, budget: &budget)
        guard case .reconcileResponse(let response) = decoded.body else { return XCTFail("\(decoded.body)") }
        XCTAssertEqual(response.rows.map(\.row), [[UInt8]](repeating: row, count: 4))
        XCTAssertLessThan(budget.charged, bytes.count + 4096)
        assertLimitExceeded(try RecordNamespace.decodeRow(bytes: row))
    }

    func testRejectAWantListWhoseKeysOutgrowTheBudget() {
        let bytes = frame(kind: "reconcile_resp") { map in
            map.entry("ns") { $0.write("records") }
            map.entry("rows") { $0.writeArrayHeader(count: 0) }
            map.entry("want") { $0.write(encodedItem: array(1 << 20, of: [0x41, 0x01])) }
        }
        assertLimitExceeded(try SyncFrame(decoding: bytes))
    }

    func testAListingHeavyFrameKeepsLessThanFourBytesPerInputByte() throws {
        var writer = CanonicalWriter()
        writer.writeArrayHeader(count: 1)
        writer.writeArrayHeader(count: 3)
        writer.write(bytes: [])
        writer.writeNull()
        let leaves = 200_000
        writer.writeArrayHeader(count: leaves)
        for index in 0..<leaves {
            writer.writeArrayHeader(count: 2)
            writer.write(bytes: [UInt8(index >> 16), UInt8(index >> 8 & 0xff), UInt8(index & 0xff)])
            writer.write(bytes: [UInt8](repeating: 1, count: 32))
        }
        let listings = writer.bytes
        let frameBytes = frame(kind: "range_req") { map in
            map.entry("ns") { $0.write("records") }
            map.entry("nodes") { $0.writeArrayHeader(count: 0) }
            map.entry("listings") { $0.write(encodedItem: listings) }
        }
        var budget = DecodeBudget(inputBytes: frameBytes.count)
        guard case .rangeCompare(let compare) = try SyncFrame(decoding: frameBytes, budget: &budget).body else { return XCTFail("kind") }
        XCTAssertEqual(compare.listings.first?.leaves.count, leaves)
        XCTAssertLessThan(budget.charged, 4 * frameBytes.count)
    }

    // MARK: The largest legitimate frames

    private func largestSketch() -> SyncFrame {
        SyncFrame(account: account, schema: SchemaFingerprint(value: UInt64.max),
                  body: .sketch(SketchRequest(namespace: "records", root: [UInt8](repeating: 1, count: 16), symbols: largestSketchSymbols())),
                  capabilities: [SyncFrame.sketchCapability])
    }

    /// The standard capacity of symbols of the longest key sums and the widest counts.
    private func largestSketchSymbols() -> [CodedSymbol] {
        let keySum = [UInt8](repeating: 0x3c, count: CodedSymbol.maxKeySumBytes)
        return (0..<RatelessSketch.standardCapacity).map {
            CodedSymbol(count: Int64.min + Int64($0), keySum: keySum, tagSum: UInt32($0))
        }
    }

    func testTheFrameLimitIsTheLargestSketchAndTheReaderAgrees() {
        XCTAssertEqual(SyncFrame.maxSymbolBytes, 4117)
        XCTAssertEqual(SyncFrame.maxFrameBytes, 4096 * 4117 + (64 << 10))
        XCTAssertEqual(CBORLimits.frame.maxInputBytes, SyncFrame.maxFrameBytes)
        XCTAssertLessThan(InspectedRow.maxRowBytes + (1 << 20), SyncFrame.maxFrameBytes)
    }

    func testTheLargestSketchFrameDecodesAndOneByteMoreIsRefused() throws {
        let sketch = largestSketch()
        let bytes = sketch.encoded()
        XCTAssertLessThanOrEqual(bytes.count, SyncFrame.maxFrameBytes)
        XCTAssertGreaterThan(bytes.count, SyncFrame.maxFrameBytes - SyncFrame.fieldBytes)
        var budget = DecodeBudget(inputBytes: bytes.count)
        XCTAssertEqual(try SyncFrame(decoding: bytes, budget: &budget), sketch)
        XCTAssertLessThan(budget.charged, 2 * bytes.count)

        let padding = SyncFrame.maxFrameBytes - bytes.count - 8
        let padded = { (extra: Int) -> [UInt8] in
            var writer = CanonicalWriter()
            writer.writeMap { map in
                map.entry("type") { $0.write(SyncFrame.payloadType) }
                map.entry("kind") { $0.write("sketch_req") }
                map.entry("account") { $0.write(bytes: self.account) }
                map.entry("schema") { $0.write(UInt64.max) }
                map.entry("caps") { $0.write(texts: [SyncFrame.sketchCapability]) }
                map.entry("ns") { $0.write("records") }
                map.entry("root") { $0.write(bytes: [UInt8](repeating: 1, count: SketchRequest.rootPrefixBytes)) }
                map.entry("symbols") { $0.write(bytes: SketchCodec.encode(sketch.sketchSymbols)) }
                map.entry("zz") { $0.write(bytes: [UInt8](repeating: 0, count: padding + extra)) }
            }
            return writer.bytes
        }
        var exact = padded(0)
        exact = padded(SyncFrame.maxFrameBytes - exact.count)
        XCTAssertEqual(exact.count, SyncFrame.maxFrameBytes)
        XCTAssertEqual(try SyncFrame(decoding: exact).body, sketch.body)
        let over = padded(SyncFrame.maxFrameBytes - padded(0).count + 1)
        XCTAssertEqual(over.count, SyncFrame.maxFrameBytes + 1)
        assertLimitExceeded(try SyncFrame(decoding: over))
    }

    func testRejectOneSketchSymbolMoreThanTheCapacity() {
        let symbols = [CodedSymbol](repeating: .zero, count: SketchRequest.maxSymbols + 1)
        let frame = SyncFrame(account: account, schema: SchemaFingerprint(value: UInt64.max),
                              body: .sketch(SketchRequest(namespace: "records", root: [UInt8](repeating: 1, count: 16), symbols: symbols)))
        XCTAssertThrowsError(try SyncFrame(decoding: frame.encoded())) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .malformedFrame)
        }
        XCTAssertLessThanOrEqual(SketchRequest.admittedPrefix(symbols).count, SketchRequest.maxSymbols, "a sender never builds it")
        XCTAssertEqual(SketchRequest.admittedPrefix(largestSketchSymbols()).count, RatelessSketch.standardCapacity,
                       "the largest standard sketch is admitted whole")
    }

    func testTheLargestRangeComparisonDecodes() throws {
        let fingerprint = RangeFingerprint(count: Int64.max, sum: UInt128.max)
        let deepest = [UInt8](repeating: 15, count: PrefixNode.maxDepth)
        let nodes = (0..<KernelStore.maxCompareNodes).compactMap { index -> RangeCompare.NodeFingerprint? in
            var nibbles = deepest
            nibbles[0] = UInt8(index & 15)
            nibbles[1] = UInt8(index >> 4 & 15)
            nibbles[2] = UInt8(index >> 8 & 15)
            nibbles[3] = UInt8(index >> 12 & 15)
            return PrefixNode(nibbles: nibbles).map { RangeCompare.NodeFingerprint(node: $0, fingerprint: fingerprint) }
        }
        let compare = SyncFrame(account: account, schema: schema, body: .rangeCompare(RangeCompare(namespace: "records", nodes: nodes)))
        let bytes = compare.encoded()
        XCTAssertLessThan(bytes.count, SyncFrame.maxFrameBytes)
        var budget = DecodeBudget(inputBytes: bytes.count)
        XCTAssertEqual(try SyncFrame(decoding: bytes, budget: &budget), compare)
    }

    /// Responses split from many rows of the smallest kind (the most bookkeeping per byte), many
    /// tombstones, a long listing and a long want list: every part encodes within the frame
    /// limit and decodes within its budget, in both vector forms.
    func testEverySplitPartOfTinyRowsDecodesWithinItsBudget() throws {
        let devices = (0..<4).map(TestWorld.device)
        let vector = VersionVector(Dictionary(uniqueKeysWithValues: devices.enumerated().map { ($1, UInt64($0 + 1)) }))
        let rows = (0..<30_000).map { index in
            ShippedRow(row: RecordNamespace.rowEncoding(of: .init(id: "\(index)", value: "", updatedAt: 1)), vector: vector)
        }
        let tombstones = (0..<5_000).map { Tombstone(key: Array("t\($0)".utf8), vector: vector) }
        let leaves = (0..<10_000).map { Leaf(key: [UInt8(0x80 | $0 >> 8), UInt8($0 & 0xff)], hash: [UInt8](repeating: 2, count: 32)) }
        let listing = RangeListing(range: KeyRange(lo: [0x80], hi: [0xc0]), leaves: leaves)
        let want = (0..<50_000).map { [UInt8(0x10), UInt8($0 >> 8), UInt8($0 & 0xff)] }
        let response = ReconcileResponse(namespace: "records", rows: rows, tombstones: tombstones, listings: [listing], want: want)
        let parts = response.split()
        XCTAssertGreaterThan(parts.count, 2)
        XCTAssertEqual(parts.flatMap(\.rows), rows)
        XCTAssertEqual(parts.flatMap(\.tombstones), tombstones)
        XCTAssertEqual(parts.flatMap(\.want), want)
        XCTAssertEqual(parts.flatMap(\.listings).flatMap(\.leaves), leaves)
        XCTAssertEqual(parts.flatMap(\.listings).first?.range.lo, [0x80])
        XCTAssertEqual(parts.flatMap(\.listings).last?.range.hi, [0xc0])
        for part in parts {
            for compact in [false, true] {
                let frame = SyncFrame(account: account, schema: schema, body: .reconcileResponse(part), compactVectors: compact)
                let bytes = frame.encoded()
                XCTAssertLessThanOrEqual(bytes.count, SyncFrame.maxFrameBytes)
                var budget = DecodeBudget(inputBytes: bytes.count)
                XCTAssertEqual(try SyncFrame(decoding: bytes, budget: &budget).body, .reconcileResponse(part))
                XCTAssertLessThanOrEqual(budget.charged, budget.limit)
            }
        }
    }

    func testTheLargestRowTravelsAloneAndOneByteMoreIsRefused() throws {
        let overhead = RecordNamespace.rowEncoding(of: .init(id: "big", value: "", updatedAt: 1)).count + 4
        let largest = RecordNamespace.Row(id: "big", value: String(repeating: "v", count: InspectedRow.maxRowBytes - overhead),
                                          updatedAt: 1)
        let bytes = RecordNamespace.rowEncoding(of: largest)
        XCTAssertEqual(bytes.count, InspectedRow.maxRowBytes)
        let devices = (0..<64).map(TestWorld.device)
        let vector = VersionVector(Dictionary(uniqueKeysWithValues: devices.enumerated().map { ($1, UInt64($0 + 1)) }))
        let response = ReconcileResponse(namespace: "records", rows: [ShippedRow(row: bytes, vector: vector)], tombstones: [])
        let frameBytes = SyncFrame(account: account, schema: schema, body: .reconcileResponse(response)).encoded()
        XCTAssertLessThanOrEqual(frameBytes.count, SyncFrame.maxFrameBytes)
        XCTAssertEqual(try SyncFrame(decoding: frameBytes).body, .reconcileResponse(response))
        XCTAssertEqual(try RecordNamespace.decodeRow(bytes: bytes), largest)

        let world = try TestWorld()
        let store = try world.store()
        let over = RecordNamespace.Row(id: "big", value: largest.value + "v", updatedAt: 1)
        XCTAssertThrowsError(try store.apply(ReconcileResponse(
            namespace: "records", rows: [ShippedRow(row: RecordNamespace.rowEncoding(of: over), vector: vector)], tombstones: []))) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .limitExceeded, "\(error)")
        }
        XCTAssertThrowsError(try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(over) }) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .rowRejected, "\(error)")
        }
    }

    // MARK: decodeRow

    func testRejectARowOfAMillionTinyItemsBeforeBuildingIt() {
        assertLimitExceeded(try RecordNamespace.decodeRow(bytes: array(1 << 20, of: [0x00])))
    }
}

extension SyncFrame {
    /// The symbols of a `sketch_req` (empty for other kinds).
    fileprivate var sketchSymbols: [CodedSymbol] {
        if case .sketch(let request) = body { return request.symbols }
        return []
    }
}
