import Foundation

/// One decoded CBOR data item, as produced by `CBORReader`.
///
/// Invariant: a value produced by `CBORReader` re-encodes to exactly the bytes it was read
/// from (the reader accepts canonical encodings only), so decode-then-encode is the identity.
public indirect enum CBORValue: Sendable, Hashable {
    /// An unsigned integer (major type 0).
    case unsigned(UInt64)
    /// A negative integer `-1 - n` (major type 1), holding `n`.
    case negative(UInt64)
    /// A byte string.
    case bytes([UInt8])
    /// A text string.
    case text(String)
    /// An array.
    case array([CBORValue])
    /// A map, entries in canonical key order.
    case map([CBORMapEntry])
    /// A tagged item.
    case tagged(UInt64, CBORValue)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
}

extension CBORValue {
    /// The value under text key `key` of a map, or nil when absent or when this is not a map.
    public subscript(key: String) -> CBORValue? {
        guard case .map(let entries) = self else { return nil }
        for entry in entries where entry.key == .text(key) { return entry.value }
        return nil
    }

    /// The value under text key `key`, or a `missingField` error naming the key.
    public func required(_ key: String) throws(SyncKernelError) -> CBORValue {
        guard case .map = self else { throw SyncKernelError(.unexpectedType, "expected a map") }
        guard let value = self[key] else { throw SyncKernelError(.missingField, key) }
        return value
    }

    /// This value as an unsigned integer.
    public func uint() throws(SyncKernelError) -> UInt64 {
        guard case .unsigned(let value) = self else { throw SyncKernelError(.unexpectedType, "expected an unsigned integer") }
        return value
    }

    /// This value as a signed 64-bit integer.
    public func int64() throws(SyncKernelError) -> Int64 {
        switch self {
        case .unsigned(let value) where value <= UInt64(Int64.max): return Int64(value)
        case .negative(let value) where value <= UInt64(Int64.max): return -1 - Int64(value)
        default: throw SyncKernelError(.unexpectedType, "expected a 64-bit integer")
        }
    }

    /// This value as an `Int`, refusing values that do not fit.
    public func int() throws(SyncKernelError) -> Int {
        let value = try int64()
        guard let narrowed = Int(exactly: value) else { throw SyncKernelError(.limitExceeded, "integer out of range") }
        return narrowed
    }

    /// This value as a byte string.
    public func bytes() throws(SyncKernelError) -> [UInt8] {
        guard case .bytes(let value) = self else { throw SyncKernelError(.unexpectedType, "expected a byte string") }
        return value
    }

    /// This value as a byte string of exactly `count` bytes.
    public func bytes(count: Int) throws(SyncKernelError) -> [UInt8] {
        let value = try bytes()
        guard value.count == count else { throw SyncKernelError(.unexpectedType, "expected \(count) bytes") }
        return value
    }

    /// This value as text.
    public func text() throws(SyncKernelError) -> String {
        guard case .text(let value) = self else { throw SyncKernelError(.unexpectedType, "expected text") }
        return value
    }

    /// This value as a boolean.
    public func bool() throws(SyncKernelError) -> Bool {
        guard case .bool(let value) = self else { throw SyncKernelError(.unexpectedType, "expected a boolean") }
        return value
    }

    /// This value as an array.
    public func array() throws(SyncKernelError) -> [CBORValue] {
        guard case .array(let value) = self else { throw SyncKernelError(.unexpectedType, "expected an array") }
        return value
    }

    /// This value as a map's entries.
    public func mapEntries() throws(SyncKernelError) -> [CBORMapEntry] {
        guard case .map(let value) = self else { throw SyncKernelError(.unexpectedType, "expected a map") }
        return value
    }

    /// This value as a date written by `CanonicalWriter.write(_: Date)` (tag 1, whole seconds);
    /// a date further than `CanonicalWriter.maxDateSeconds` from 1970 (which the writer never
    /// produces) is refused with `limitExceeded`.
    public func date() throws(SyncKernelError) -> Date {
        guard case .tagged(1, let item) = self else { throw SyncKernelError(.unexpectedType, "expected a date") }
        let seconds = try item.int64()
        guard seconds >= -CanonicalWriter.maxDateSeconds, seconds <= CanonicalWriter.maxDateSeconds else {
            throw SyncKernelError(.limitExceeded, "a date beyond CanonicalWriter.maxDateSeconds")
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// This value as an array of text strings.
    public func texts() throws(SyncKernelError) -> [String] {
        var out: [String] = []
        for item in try array() { out.append(try item.text()) }
        return out
    }

    /// This value as an array of exactly `count` items (a positional row encoding).
    public func fields(_ count: Int, of what: String) throws(SyncKernelError) -> [CBORValue] {
        let items = try array()
        guard items.count == count else { throw SyncKernelError(.malformedFrame, "\(what) has \(count) fields") }
        return items
    }

    /// This value as bytes, or nil for CBOR null.
    public func nullableBytes() throws(SyncKernelError) -> [UInt8]? {
        self == .null ? nil : try bytes()
    }

    /// This value as text, or nil for CBOR null.
    public func nullableText() throws(SyncKernelError) -> String? {
        self == .null ? nil : try text()
    }

    /// This value as a date, or nil for CBOR null.
    public func nullableDate() throws(SyncKernelError) -> Date? {
        self == .null ? nil : try date()
    }
}
