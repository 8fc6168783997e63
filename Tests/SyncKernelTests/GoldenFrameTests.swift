import Foundation
import SyncKernel
import XCTest

/// Pins the canonical wire encoding of every `SyncFrame` kind, and of a `StateDigest`, against
/// `Fixtures/frames/<case>.golden`.
///
/// Each case builds one frame from fixed inputs: schema `0x0102030405060708`, a fixed 32-byte
/// account, fixed 32-byte device ids, and fixed row bytes written with `CanonicalWriter` (not a
/// namespace encoding, so only the kernel's frame layout is pinned). The test requires the
/// frame's encoding to equal the recorded bytes exactly, and the recorded bytes to decode to the
/// same frame. The cases cover a heartbeat, a state digest with and without `probe`, a
/// reconcile request with buckets and one with keys, a reconcile response carrying rows with and
/// without vectors, a content vector, siblings, tombstones and listings (bounded and unbounded),
/// and a response with rows only (its optional keys left out). The fixtures were generated once;
/// this test never rewrites them.
final class GoldenFrameTests: XCTestCase {
    static let schema = SchemaFingerprint(value: 0x0102_0304_0506_0708)
    static let account: [UInt8] = (0..<32).map { 0xa0 &+ UInt8($0) }

    /// The namespaces and roots of the golden digest, in name order.
    static let digestNamespaces = ["contacts", "notebook", "settings"]
    static let digestRoots: [[UInt8]] = [[UInt8](repeating: 0, count: 32), [UInt8](repeating: 0x5a, count: 32),
                                         (0..<32).map { UInt8($0) }]

    static func digest() -> StateDigest {
        StateDigest(schema: schema, namespaces: digestNamespaces, roots: digestRoots)
    }

    static func devices() throws -> (DeviceID, DeviceID, DeviceID) {
        (try DeviceID(publicKey: [UInt8](repeating: 0x11, count: 32)),
         try DeviceID(publicKey: [UInt8](repeating: 0x22, count: 32)),
         try DeviceID(publicKey: (0..<32).map { 0xe0 &+ UInt8($0) }))
    }

    /// A canonical item exercising every CBOR major type the writer emits.
    static func rowA() -> [UInt8] {
        var writer = CanonicalWriter()
        writer.writeArrayHeader(count: 8)
        writer.write("golden row é 🙂")
        writer.write(UInt64(42))
        writer.write(Int64(-7))
        writer.write(bytes: [1, 2, 3])
        writer.write(Date(timeIntervalSince1970: 1_700_000_000))
        writer.writeNull()
        writer.write(true)
        writer.writeMap { map in
            map.entry("k") { $0.write("v") }
            map.entry(bytesKey: [0x00]) { $0.write(UInt64(70_000)) }
        }
        return writer.bytes
    }

    /// A second, smaller canonical item.
    static func rowB() -> [UInt8] {
        var writer = CanonicalWriter()
        writer.writeArrayHeader(count: 2)
        writer.write("b")
        writer.write(false)
        return writer.bytes
    }

    /// The golden cases: fixture name and the frame it pins.
    static func frames() throws -> [(name: String, frame: SyncFrame)] {
        let (first, second, third) = try devices()
        let vectorA = VersionVector([first: 3, second: 300])
        let contentA = VersionVector([first: 2])
        let vectorSibling = VersionVector([third: 0x1_0000_0000, second: 1])
        let buckets = [
            RangeBucket(range: KeyRange(lo: [], hi: [0x40]), root: [UInt8](repeating: 0x01, count: 32), count: 0),
            RangeBucket(range: KeyRange(lo: [0x40], hi: [0x80, 0x00]), root: [UInt8](repeating: 0x02, count: 32), count: 5),
            RangeBucket(range: KeyRange(lo: [0x80, 0x00], hi: nil), root: [UInt8](repeating: 0x03, count: 32), count: 300),
        ]
        let response = ReconcileResponse(
            namespace: "records",
            rows: [ShippedRow(row: rowA(), vector: vectorA, contentVector: contentA,
                              siblings: [ShippedRow(row: rowB(), vector: vectorSibling)]),
                   ShippedRow(row: rowB(), vector: nil)],
            tombstones: [Tombstone(key: [0x05], vector: vectorA), Tombstone(key: [0x05], vector: vectorSibling)],
            listings: [RangeListing(range: KeyRange(lo: [0x10], hi: [0x20]),
                                    leaves: [Leaf(key: [0x10], hash: [UInt8](repeating: 0x0f, count: 32)),
                                             Leaf(key: [0x18, 0xff], hash: (0..<32).map { UInt8($0) })]),
                       RangeListing(range: KeyRange(lo: [0x80], hi: nil), leaves: [])])
        let rowsOnly = ReconcileResponse(namespace: "notebook", rows: [ShippedRow(row: rowB(), vector: nil)], tombstones: [])
        func frame(_ body: SyncFrame.Body) -> SyncFrame { SyncFrame(account: account, schema: schema, body: body) }
        return [
            ("heartbeat", frame(.heartbeat)),
            ("state_digest", frame(.stateDigest(digest: digest().encoded(), probe: false))),
            ("state_digest_probe", frame(.stateDigest(digest: digest().encoded(), probe: true))),
            ("reconcile_req_buckets", frame(.reconcileRequest(ReconcileRequest(namespace: "records", buckets: buckets)))),
            ("reconcile_req_keys", frame(.reconcileRequest(ReconcileRequest(
                namespace: "records", buckets: [], keys: [[0x01], (0..<16).map { UInt8($0) }, [0xff, 0x00]])))),
            ("reconcile_resp", frame(.reconcileResponse(response))),
            ("reconcile_resp_rows_only", frame(.reconcileResponse(rowsOnly))),
        ]
    }

    func testEveryFrameKindEncodesToItsGoldenBytesAndDecodesBack() throws {
        let cases = try GoldenFrameTests.frames()
        XCTAssertEqual(Set(cases.map { $0.frame.body.kind }), ["heartbeat", "state_digest", "reconcile_req", "reconcile_resp"])
        for (name, frame) in cases {
            let recorded = try recordedBytes(name)
            XCTAssertEqual(Hex.encode(frame.encoded()), Hex.encode(recorded), "\(name): encoding differs from the fixture")
            let decoded = try SyncFrame(decoding: recorded)
            XCTAssertEqual(decoded, frame, "\(name): the fixture decodes to another frame")
            XCTAssertEqual(decoded.body.kind, frame.body.kind, name)
        }
    }

    func testStateDigestEncodesToItsGoldenBytesAndDecodesBack() throws {
        let digest = GoldenFrameTests.digest()
        let recorded = try recordedBytes("digest")
        XCTAssertEqual(Hex.encode(digest.encoded()), Hex.encode(recorded), "digest encoding differs from the fixture")
        let decoded = try StateDigest(decoding: recorded, expecting: GoldenFrameTests.schema,
                                      namespaces: GoldenFrameTests.digestNamespaces)
        XCTAssertEqual(decoded, digest)
        XCTAssertEqual(StateDigest.claimedSchema(of: recorded), GoldenFrameTests.schema)
    }

    /// The bytes on the single `encoding <hex>` line of `Fixtures/frames/<name>.golden`.
    private func recordedBytes(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/frames/\(name).golden")
        let lines = try String(contentsOf: url, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        XCTAssertEqual(lines.count, 1, "\(name): expected exactly one non-comment line")
        let line = try XCTUnwrap(lines.first, "\(name): no encoding line")
        let parts = line.split(separator: " ").map(String.init)
        XCTAssertEqual(parts.count, 2, "\(name): malformed line")
        XCTAssertEqual(parts.first, "encoding", "\(name): expected an encoding line")
        let hex = try XCTUnwrap(parts.last, "\(name): no hex")
        return try XCTUnwrap(Hex.decode(hex), "\(name): bad hex")
    }
}
