
/// A bounded, strict CBOR reader: it accepts exactly the encodings `CanonicalWriter` produces.
///
/// Invariants: never traps on any input; refuses indefinite lengths, non-shortest integer and
/// length forms, unsorted or repeated map keys, invalid UTF-8, floats and unknown simple values,
/// and anything beyond its `CBORLimits`, each with a typed `SyncKernelError`.
package struct CBORReader {
    private let input: [UInt8]
    private let limits: CBORLimits
    private var offset = 0

    /// Decodes exactly one item spanning all of `bytes`.
    package static func decode(_ bytes: [UInt8], limits: CBORLimits = .frame) throws(SyncKernelError) -> CBORValue {
        guard bytes.count <= limits.maxInputBytes else { throw SyncKernelError(.limitExceeded, "input too large") }
        var reader = CBORReader(input: bytes, limits: limits)
        let value = try reader.readItem(depth: 0)
        guard reader.offset == bytes.count else { throw SyncKernelError(.trailingBytes) }
        return value
    }

    /// Decodes a CBOR sequence (items back to back, as leaf encodings are written).
    package static func decodeSequence(_ bytes: [UInt8], limits: CBORLimits = .frame) throws(SyncKernelError) -> [CBORValue] {
        guard bytes.count <= limits.maxInputBytes else { throw SyncKernelError(.limitExceeded, "input too large") }
        var reader = CBORReader(input: bytes, limits: limits)
        var items: [CBORValue] = []
        while reader.offset < bytes.count { items.append(try reader.readItem(depth: 0)) }
        return items
    }

    private init(input: [UInt8], limits: CBORLimits) {
        self.input = input
        self.limits = limits
    }

    private mutating func readItem(depth: Int) throws(SyncKernelError) -> CBORValue {
        guard depth <= limits.maxDepth else { throw SyncKernelError(.limitExceeded, "nesting too deep") }
        let initial = try readByte()
        let major = initial >> 5
        let info = initial & 0x1f
        if major == 7 {
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            default: throw SyncKernelError(.unsupportedEncoding, "float or simple value")
            }
        }
        let argument = try readArgument(info)
        switch major {
        case 0: return .unsigned(argument)
        case 1: return .negative(argument)
        case 2: return .bytes(try readBytes(count: argument))
        case 3:
            let raw = try readBytes(count: argument)
            guard let text = String(validating: raw, as: UTF8.self) else { throw SyncKernelError(.invalidText) }
            return .text(text)
        case 4:
            let count = try containerCount(argument)
            var items: [CBORValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try readItem(depth: depth + 1)) }
            return .array(items)
        case 5:
            let count = try containerCount(argument)
            var entries: [CBORMapEntry] = []
            entries.reserveCapacity(count)
            var previousKey: ArraySlice<UInt8>?
            for _ in 0..<count {
                let keyStart = offset
                let key = try readItem(depth: depth + 1)
                let keyBytes = input[keyStart..<offset]
                if let previousKey {
                    if previousKey == keyBytes { throw SyncKernelError(.duplicateMapKey) }
                    guard previousKey.lexicographicallyPrecedes(keyBytes) else {
                        throw SyncKernelError(.nonCanonicalEncoding, "map keys out of order")
                    }
                }
                previousKey = keyBytes
                entries.append(CBORMapEntry(key: key, value: try readItem(depth: depth + 1)))
            }
            return .map(entries)
        default:
            return .tagged(argument, try readItem(depth: depth + 1))
        }
    }

    private mutating func readArgument(_ info: UInt8) throws(SyncKernelError) -> UInt64 {
        switch info {
        case 0..<24:
            return UInt64(info)
        case 24:
            let value = UInt64(try readByte())
            guard value >= 24 else { throw SyncKernelError(.nonCanonicalEncoding, "integer not in shortest form") }
            return value
        case 25, 26, 27:
            let width = 1 << Int(info - 24)
            var value: UInt64 = 0
            for _ in 0..<width { value = value << 8 | UInt64(try readByte()) }
            guard value > (UInt64(1) << (UInt64(width) * 4)) - 1 else {
                throw SyncKernelError(.nonCanonicalEncoding, "integer not in shortest form")
            }
            return value
        case 31:
            throw SyncKernelError(.unsupportedEncoding, "indefinite length")
        default:
            throw SyncKernelError(.unsupportedEncoding, "reserved additional information")
        }
    }

    private func containerCount(_ argument: UInt64) throws(SyncKernelError) -> Int {
        guard argument <= UInt64(limits.maxContainerCount) else { throw SyncKernelError(.limitExceeded, "container too large") }
        // Every element takes at least one byte, so a count beyond the remaining input is a lie.
        guard argument <= UInt64(input.count - offset) else { throw SyncKernelError(.truncatedInput) }
        return Int(argument)
    }

    private mutating func readByte() throws(SyncKernelError) -> UInt8 {
        guard offset < input.count else { throw SyncKernelError(.truncatedInput) }
        defer { offset += 1 }
        return input[offset]
    }

    private mutating func readBytes(count: UInt64) throws(SyncKernelError) -> [UInt8] {
        guard count <= UInt64(input.count - offset) else { throw SyncKernelError(.truncatedInput) }
        let end = offset + Int(count)
        defer { offset = end }
        return Array(input[offset..<end])
    }
}
