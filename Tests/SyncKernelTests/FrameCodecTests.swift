import SyncKernel
import SyncKernelSimulator
import XCTest

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
