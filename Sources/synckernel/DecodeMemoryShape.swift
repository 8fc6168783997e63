import Foundation
import NotebookNamespace
import SyncKernel

/// One input the decoding-memory benchmark feeds a decoder: hostile shapes that cost the most
/// per input byte, and legitimate frames and rows at their largest.
///
/// Invariant: `input(bytes:)` is deterministic (no randomness), so two runs measure the same
/// bytes; the hostile shapes are valid CBOR under the frame limits (they pass the reader's
/// canonical checks), so they reach the allocating part of the decoder.
enum DecodeMemoryShape: String, CaseIterable {
    case cborDeepNesting = "cbor-deep-nesting"
    case cborTinyItems = "cbor-tiny-items"
    case cborMillionMap = "cbor-million-map"
    case cborLongBytes = "cbor-long-bytes"
    case cborShortBytes = "cbor-short-bytes"
    case frameUnknownKey = "frame-unknown-key"
    case frameTinyRows = "frame-tiny-rows"
    case frameRows = "frame-rows"
    case frameSketch = "frame-sketch"
    case frameListings = "frame-listings"
    case frameWant = "frame-want"
    case rowTinyItems = "row-tiny-items"
    case rowLarge = "row-large"

    /// Which decoder the shape goes through.
    var decoder: String {
        switch self {
        case .cborDeepNesting, .cborTinyItems, .cborMillionMap, .cborLongBytes, .cborShortBytes: "CBORReader.decode"
        case .frameUnknownKey, .frameTinyRows, .frameRows, .frameSketch, .frameListings, .frameWant: "SyncFrame(decoding:)"
        case .rowTinyItems, .rowLarge: "decodeRow(bytes:)"
        }
    }

    /// Whether the input is as large as `bytes` asks (the legitimate frames have sizes of their own).
    var scales: Bool {
        switch self {
        case .frameSketch, .frameRows: false
        default: true
        }
    }

    /// Decodes `input` with the shape's decoder; "ok" or the error's code name.
    func decode(_ input: [UInt8]) -> String {
        do throws(SyncKernelError) {
            switch decoder {
            case "CBORReader.decode": withExtendedLifetime(try CBORReader.decode(input)) {}
            case "SyncFrame(decoding:)": withExtendedLifetime(try SyncFrame(decoding: input)) {}
            default: withExtendedLifetime(try NotebookNamespace.decodeRow(bytes: input)) {}
            }
            return "ok"
        } catch {
            return error.code.name
        }
    }

    /// The input, about `bytes` long for the shapes that scale.
    func input(bytes: Int) -> [UInt8] {
        switch self {
        case .cborDeepNesting:
            return chunked(bytes: bytes, item: [UInt8](repeating: 0x81, count: 22) + [0x00])
        case .cborTinyItems:
            return chunked(bytes: bytes, item: [0x00])
        case .cborMillionMap:
            var writer = CanonicalWriter(reservingCapacity: 6_500_000)
            writer.write(encodedItem: [0xba, 0x00, 0x0f, 0x42, 0x40])
            for key in 0..<1_000_000 {
                writer.write(UInt64(key))
                writer.write(UInt64(key % 24))
            }
            return writer.bytes
        case .cborLongBytes:
            var writer = CanonicalWriter(reservingCapacity: bytes + 16)
            writer.write(bytes: [UInt8](repeating: 0xab, count: bytes))
            return writer.bytes
        case .cborShortBytes:
            return chunked(bytes: bytes, item: [0x41, 0x07])
        case .frameUnknownKey:
            return frame(kind: "heartbeat") { map in
                map.entry("zz") { $0.write(encodedItem: chunked(bytes: bytes, item: [0x00])) }
            }
        case .frameTinyRows:
            let row = chunked(bytes: 4 << 20, item: [0x00])
            let count = max(1, bytes / row.count)
            return frame(kind: "reconcile_resp") { map in
                map.entry("ns") { $0.write("notebook") }
                map.entry("rows") { writer in
                    writer.writeArrayHeader(count: count)
                    for _ in 0..<count {
                        writer.writeMap { $0.entry("r") { $0.write(encodedItem: row) } }
                    }
                }
            }
        case .frameRows:
            return DecodeMemoryShape.legitimateRowsFrame()
        case .frameSketch:
            return DecodeMemoryShape.largestSketchFrame()
        case .frameListings:
            let perListing = 1 << 16
            let listings = max(1, bytes / 52 / perListing)
            return frame(kind: "range_req") { map in
                map.entry("ns") { $0.write("notebook") }
                map.entry("nodes") { $0.writeArrayHeader(count: 0) }
                map.entry("listings") { writer in
                    writer.writeArrayHeader(count: listings)
                    for listing in 0..<listings {
                        writer.writeArrayHeader(count: 3)
                        writer.write(bytes: DecodeMemoryShape.key(listing * perListing))
                        writer.write(bytes: DecodeMemoryShape.key((listing + 1) * perListing))
                        writer.writeArrayHeader(count: perListing)
                        for index in listing * perListing..<(listing + 1) * perListing {
                            writer.writeArrayHeader(count: 2)
                            writer.write(bytes: DecodeMemoryShape.key(index))
                            writer.write(bytes: [UInt8](repeating: 0x5a, count: 32))
                        }
                    }
                }
            }
        case .frameWant:
            let keys = min(1 << 20, max(1, bytes / 17))
            return frame(kind: "reconcile_resp") { map in
                map.entry("ns") { $0.write("notebook") }
                map.entry("rows") { $0.writeArrayHeader(count: 0) }
                map.entry("want") { writer in
                    writer.writeArrayHeader(count: keys)
                    for index in 0..<keys { writer.write(bytes: DecodeMemoryShape.key(index)) }
                }
            }
        case .rowTinyItems:
            return chunked(bytes: bytes, item: [0x00])
        case .rowLarge:
            let note = Note(id: DecodeMemoryShape.key(1), title: "a large note",
                            body: String(repeating: "lorem ipsum ", count: bytes / 12),
                            createdAt: Date(timeIntervalSince1970: 1_700_000_000), updatedAt: Date(timeIntervalSince1970: 1_700_000_100))
            return NotebookNamespace.rowEncoding(of: note)
        }
    }

    /// A 16-byte key whose order follows `index`.
    static func key(_ index: Int) -> [UInt8] {
        var key = [UInt8](repeating: 0x11, count: 16)
        for position in 0..<8 { key[position] = UInt8(truncatingIfNeeded: index >> (56 - 8 * position)) }
        return key
    }

    /// A frame map with the common keys and those `extra` adds.
    private func frame(kind: String, _ extra: (inout MapWriter) -> Void) -> [UInt8] {
        var writer = CanonicalWriter()
        writer.writeMap { map in
            map.entry("type") { $0.write(SyncFrame.payloadType) }
            map.entry("kind") { $0.write(kind) }
            map.entry("account") { $0.write(bytes: [UInt8](repeating: 7, count: 32)) }
            map.entry("schema") { $0.write(UInt64(1)) }
            extra(&map)
        }
        return writer.bytes
    }

    /// Copies of `item` in arrays of at most `CBORLimits.frame.maxContainerCount` items, nested
    /// one level when one array cannot hold them, about `bytes` long in all.
    private func chunked(bytes: Int, item: [UInt8]) -> [UInt8] {
        let perArray = 1 << 20
        let total = max(1, bytes / item.count)
        var writer = CanonicalWriter(reservingCapacity: bytes + 64)
        if total <= perArray {
            writer.writeArrayHeader(count: total)
            for _ in 0..<total { writer.write(encodedItem: item) }
            return writer.bytes
        }
        let arrays = (total + perArray - 1) / perArray
        writer.writeArrayHeader(count: arrays)
        var left = total
        for _ in 0..<arrays {
            let count = min(perArray, left)
            writer.writeArrayHeader(count: count)
            for _ in 0..<count { writer.write(encodedItem: item) }
            left -= count
        }
        return writer.bytes
    }

    /// A `reconcile_resp` as `ReconcileResponse.split` leaves it: notes of about 500 bytes with
    /// vectors of three devices, up to the per-frame row bytes.
    private static func legitimateRowsFrame() -> [UInt8] {
        let devices = (1...3).compactMap { try? DeviceID(publicKey: [UInt8](repeating: UInt8($0), count: 32)) }
        var rows: [ShippedRow] = []
        var index = 0
        while true {
            let note = Note(id: key(index), title: "note \(index)", body: String(repeating: "x", count: 420),
                            createdAt: Date(timeIntervalSince1970: 1_700_000_000), updatedAt: Date(timeIntervalSince1970: 1_700_000_100))
            let vector = VersionVector(Dictionary(uniqueKeysWithValues: devices.map { ($0, UInt64(index + 1)) }))
            rows.append(ShippedRow(row: NotebookNamespace.rowEncoding(of: note), vector: vector))
            index += 1
            if rows.reduce(0, { $0 + $1.encodedSize }) > ReconcileResponse.rowBytesPerFrame || index > 20_000 { break }
        }
        let response = ReconcileResponse(namespace: "notebook", rows: rows, tombstones: []).split()[0]
        return SyncFrame(account: [UInt8](repeating: 7, count: 32), schema: SchemaFingerprint(value: 1),
                         body: .reconcileResponse(response)).encoded()
    }

    /// A `sketch_req` at full capacity, every symbol's key sum as long as a key sum may be.
    private static func largestSketchFrame() -> [UInt8] {
        let keySum = [UInt8](repeating: 0x3c, count: CodedSymbol.maxKeySumBytes)
        let symbols = (0..<RatelessSketch.standardCapacity).map { CodedSymbol(count: Int64($0), keySum: keySum, tagSum: UInt32($0)) }
        return SyncFrame(account: [UInt8](repeating: 7, count: 32), schema: SchemaFingerprint(value: 1),
                         body: .sketch(SketchRequest(namespace: "notebook", root: [UInt8](repeating: 1, count: 16), symbols: symbols)))
            .encoded()
    }
}
