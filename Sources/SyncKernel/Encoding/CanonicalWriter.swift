import Foundation

/// A deterministic CBOR writer: one value, one encoding.
///
/// Invariants: integers and lengths use the shortest form; every length is definite; map keys
/// are emitted in bytewise order of their encodings (RFC 8949 §4.2.1) and never repeat; dates
/// are whole seconds since 1970 under tag 1 (sub-second parts are floored away, and the value is
/// clamped to `±maxDateSeconds`, the range a reader accepts); an optional is
/// a presence marker (`0` absent, `1` present) followed by the value when present, so absent
/// and empty never encode the same. Fields are written in the order the caller writes them, so
/// a leaf encoder that writes them in a fixed order yields a fixed encoding.
public struct CanonicalWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]

    /// Creates an empty writer, optionally reserving capacity.
    public init(reservingCapacity capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Writes an unsigned integer.
    public mutating func write(_ value: UInt64) {
        writeHead(major: 0, value)
    }

    /// Writes an unsigned integer.
    public mutating func write(_ value: Int) {
        write(Int64(value))
    }

    /// Writes a signed integer (major type 0 or 1).
    public mutating func write(_ value: Int64) {
        if value >= 0 {
            writeHead(major: 0, UInt64(value))
        } else {
            writeHead(major: 1, UInt64(bitPattern: -1 - value))
        }
    }

    /// Writes a byte string.
    public mutating func write(bytes value: [UInt8]) {
        writeHead(major: 2, UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// Writes a UTF-8 text string.
    public mutating func write(_ value: String) {
        let utf8 = Array(value.utf8)
        writeHead(major: 3, UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// Writes a boolean.
    public mutating func write(_ value: Bool) {
        bytes.append(value ? 0xf5 : 0xf4)
    }

    /// Writes CBOR null.
    public mutating func writeNull() {
        bytes.append(0xf6)
    }

    /// Writes a date as tag 1 over whole seconds since 1970, flooring any sub-second part.
    public mutating func write(_ date: Date) {
        writeHead(major: 6, 1)
        write(CanonicalWriter.wholeSeconds(date))
    }

    /// The furthest a date may lie from 1970, in whole seconds: 100,000,000 days (the range of
    /// an ECMAScript `Date`), 8.64 × 10^12 s.
    ///
    /// Invariant: the writer clamps every date into `-maxDateSeconds...maxDateSeconds` and the
    /// reader refuses any other (`limitExceeded`), so a date read from a peer re-encodes to the
    /// bytes it came in (every whole second in range, offset by the 978,307,200 s `Date` keeps
    /// from 2001, is exact in a `Double`) and arithmetic on it (× 1000 for milliseconds) stays far
    /// inside `Int64`.
    public static let maxDateSeconds: Int64 = 8_640_000_000_000

    /// `maxDateSeconds` in milliseconds (8.64 × 10^15, below 2^53).
    public static let maxDateMilliseconds: Int64 = maxDateSeconds * 1000

    /// The whole-second value a date encodes to (floored, so 10.9 s and 10.0 s agree), clamped
    /// to `±maxDateSeconds`; a non-finite date encodes as 0.
    public static func wholeSeconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite else { return 0 }
        return Int64(max(min(seconds, Double(maxDateSeconds)), Double(-maxDateSeconds)))
    }

    /// The whole-millisecond value of a date (floored, clamped to `±maxDateMilliseconds`; a
    /// non-finite date encodes as 0).
    public static func wholeMilliseconds(_ date: Date) -> Int64 {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard milliseconds.isFinite else { return 0 }
        return Int64(max(min(milliseconds, Double(maxDateMilliseconds)), Double(-maxDateMilliseconds)))
    }

    /// Writes an optional: the presence marker, then the value through `body` when present.
    public mutating func writeOptional<Value>(_ value: Value?, _ body: (inout CanonicalWriter, Value) -> Void) {
        if let value {
            write(UInt64(1))
            body(&self, value)
        } else {
            write(UInt64(0))
        }
    }

    /// Writes bytes, or null when absent (for row encodings; leaves use `writeOptional`).
    public mutating func writeNullable(bytes value: [UInt8]?) {
        if let value { write(bytes: value) } else { writeNull() }
    }

    /// Writes text, or null when absent (for row encodings; leaves use `writeOptional`).
    public mutating func writeNullable(_ value: String?) {
        if let value { write(value) } else { writeNull() }
    }

    /// Writes a date, or null when absent (for row encodings; leaves use `writeOptional`).
    public mutating func writeNullable(_ value: Date?) {
        if let value { write(value) } else { writeNull() }
    }

    /// Writes an array header for `count` items; the caller then writes exactly that many items.
    public mutating func writeArrayHeader(count: Int) {
        writeHead(major: 4, UInt64(count))
    }

    /// Writes an array of `items`, each through `body`.
    public mutating func writeArray<Items: Collection>(_ items: Items,
                                                       _ body: (inout CanonicalWriter, Items.Element) -> Void) {
        writeArrayHeader(count: items.count)
        for item in items { body(&self, item) }
    }

    /// Writes an array of text strings.
    public mutating func write(texts: [String]) {
        writeArray(texts) { $0.write($1) }
    }

    /// Writes a map whose entries `build` adds; they are sorted into canonical order here.
    public mutating func writeMap(_ build: (inout MapWriter) -> Void) {
        var map = MapWriter()
        build(&map)
        let entries = map.sortedEntries()
        writeHead(major: 5, UInt64(entries.count))
        for entry in entries {
            bytes.append(contentsOf: entry.key)
            bytes.append(contentsOf: entry.value)
        }
    }

    /// Appends one already-encoded canonical item (for example a stored row) verbatim.
    ///
    /// The caller guarantees `item` came from a `CanonicalWriter`; the kernel only passes bytes it
    /// wrote itself or validated with `CBORReader`.
    public mutating func write(encodedItem item: [UInt8]) {
        bytes.append(contentsOf: item)
    }

    private mutating func writeHead(major: UInt8, _ value: UInt64) {
        let top = major << 5
        switch value {
        case 0..<24:
            bytes.append(top | UInt8(value))
        case 24...0xff:
            bytes.append(top | 24)
            bytes.append(UInt8(value))
        case 0x100...0xffff:
            bytes.append(top | 25)
            appendBigEndian(value, byteCount: 2)
        case 0x1_0000...0xffff_ffff:
            bytes.append(top | 26)
            appendBigEndian(value, byteCount: 4)
        default:
            bytes.append(top | 27)
            appendBigEndian(value, byteCount: 8)
        }
    }

    private mutating func appendBigEndian(_ value: UInt64, byteCount: Int) {
        for shift in stride(from: (byteCount - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
