/// A bounded, strict CBOR reader: it accepts exactly the encodings `CanonicalWriter` produces.
///
/// Invariants: never traps on any input; refuses indefinite lengths, non-shortest integer and
/// length forms, unsorted or repeated map keys, invalid UTF-8, floats and unknown simple values,
/// and anything beyond its `CBORLimits`, each with a typed `SyncKernelError`. Checking allocates
/// nothing: the whole input is walked and refused or accepted before any value is built, so an
/// input is refused with the same error whatever is read from it afterwards, and what is built
/// from it (a `CBORValue` tree here, typed values through a `CBORCursor`) is charged to a
/// `DecodeBudget` of the input's size.
package struct CBORReader {
    private let input: [UInt8]
    private let limits: CBORLimits
    private var offset = 0

    /// Decodes exactly one item spanning all of `bytes`, refusing with `limitExceeded` a tree
    /// that would keep more than `DecodeBudget(inputBytes: bytes.count).limit` bytes.
    package static func decode(_ bytes: [UInt8], limits: CBORLimits = .frame) throws(SyncKernelError) -> CBORValue {
        var budget = DecodeBudget(inputBytes: bytes.count)
        return try decode(bytes, limits: limits, budget: &budget)
    }

    /// Decodes exactly one item spanning all of `bytes`, charging `budget` for the tree (so a
    /// caller can read what the tree keeps from `budget.charged`).
    package static func decode(_ bytes: [UInt8], limits: CBORLimits = .frame,
                               budget: inout DecodeBudget) throws(SyncKernelError) -> CBORValue {
        var cursor = try cursor(over: bytes, limits: limits)
        return try cursor.readValue(budget: &budget)
    }

    /// Decodes a CBOR sequence (items back to back, as leaf encodings are written), under one
    /// `DecodeBudget` of the whole input.
    package static func decodeSequence(_ bytes: [UInt8], limits: CBORLimits = .frame) throws(SyncKernelError) -> [CBORValue] {
        guard bytes.count <= limits.maxInputBytes else { throw SyncKernelError(.limitExceeded, "input too large") }
        var reader = CBORReader(input: bytes, limits: limits)
        var count = 0
        while reader.offset < bytes.count {
            try reader.checkItem(depth: 0)
            count += 1
        }
        var budget = DecodeBudget(inputBytes: bytes.count)
        try budget.chargeArray(of: CBORValue.self, count: count)
        var items: [CBORValue] = []
        items.reserveCapacity(count)
        var cursor = CBORCursor(validated: bytes)
        for _ in 0..<count { items.append(try cursor.readValue(budget: &budget)) }
        return items
    }

    /// A cursor at the start of `bytes`, once the whole input has been checked to be exactly one
    /// canonical item within `limits`.
    package static func cursor(over bytes: [UInt8], limits: CBORLimits = .frame) throws(SyncKernelError) -> CBORCursor {
        guard bytes.count <= limits.maxInputBytes else { throw SyncKernelError(.limitExceeded, "input too large") }
        var reader = CBORReader(input: bytes, limits: limits)
        try reader.checkItem(depth: 0)
        guard reader.offset == bytes.count else { throw SyncKernelError(.trailingBytes) }
        return CBORCursor(validated: bytes)
    }

    private init(input: [UInt8], limits: CBORLimits) {
        self.input = input
        self.limits = limits
    }

    /// Walks one item, checking everything the invariant lists; allocates nothing.
    private mutating func checkItem(depth: Int) throws(SyncKernelError) {
        guard depth <= limits.maxDepth else { throw SyncKernelError(.limitExceeded, "nesting too deep") }
        let initial = try readByte()
        let major = initial >> 5
        let info = initial & 0x1f
        if major == 7 {
            guard (20...22).contains(info) else { throw SyncKernelError(.unsupportedEncoding, "float or simple value") }
            return
        }
        let argument = try readArgument(info)
        switch major {
        case 0, 1:
            return
        case 2:
            _ = try skipBytes(count: argument)
        case 3:
            let range = try skipBytes(count: argument)
            guard CBORReader.isValidUTF8(input[range]) else { throw SyncKernelError(.invalidText) }
        case 4:
            let count = try containerCount(argument)
            for _ in 0..<count { try checkItem(depth: depth + 1) }
        case 5:
            let count = try containerCount(argument)
            var previousKey: Range<Int>?
            for _ in 0..<count {
                let keyStart = offset
                try checkItem(depth: depth + 1)
                let key = keyStart..<offset
                if let previousKey {
                    if input[previousKey].elementsEqual(input[key]) { throw SyncKernelError(.duplicateMapKey) }
                    guard input[previousKey].lexicographicallyPrecedes(input[key]) else {
                        throw SyncKernelError(.nonCanonicalEncoding, "map keys out of order")
                    }
                }
                previousKey = key
                try checkItem(depth: depth + 1)
            }
        default:
            try checkItem(depth: depth + 1)
        }
    }

    /// Whether `bytes` are well-formed UTF-8 (what `String(validating:as:)` accepts), decided
    /// without building a string.
    private static func isValidUTF8(_ bytes: ArraySlice<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
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

    private mutating func skipBytes(count: UInt64) throws(SyncKernelError) -> Range<Int> {
        guard count <= UInt64(input.count - offset) else { throw SyncKernelError(.truncatedInput) }
        let end = offset + Int(count)
        defer { offset = end }
        return offset..<end
    }
}
