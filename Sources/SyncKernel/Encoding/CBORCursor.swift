/// A read position in CBOR that `CBORReader` checked whole: reads one item at a time straight
/// into typed values, or skips it, without building a `CBORValue` tree.
///
/// Invariants: a cursor exists only over input `CBORReader.cursor(over:limits:)` accepted (or
/// that `CBORReader` checked before making one), so every item it reads is canonical and
/// nests no deeper than the limits allowed; reading an item of another type throws the same
/// `unexpectedType` error the matching `CBORValue` accessor throws; every allocation a read keeps
/// is charged to the `DecodeBudget` passed in before it is made; it never traps, whatever the
/// input (a read past the end throws `truncatedInput`).
package struct CBORCursor {
    /// The checked input.
    package let input: [UInt8]
    /// Where the next item starts.
    package private(set) var offset = 0

    /// A cursor at the start of input `CBORReader` has checked.
    init(validated input: [UInt8]) {
        self.input = input
    }

    /// Whether the next item is CBOR null.
    package var isAtNull: Bool {
        offset < input.count && input[offset] == 0xf6
    }

    /// Whether the next item is a map.
    package var isAtMap: Bool {
        offset < input.count && input[offset] >> 5 == 5
    }

    /// Whether the next item is a text string (map keys the kernel writes are).
    package var isAtText: Bool {
        offset < input.count && input[offset] >> 5 == 3
    }

    /// Skips one item, however deep, without recursion.
    package mutating func skip() throws(SyncKernelError) {
        var pending: UInt64 = 1
        while pending > 0 {
            pending -= 1
            let (major, argument) = try head()
            switch major {
            case 2, 3: _ = try take(argument)
            case 4: pending += try count(argument)
            case 5: pending += 2 * (try count(argument))
            case 6: pending += 1
            default: break
            }
        }
    }

    /// The bytes of the next item exactly as encoded, and moves past it.
    package mutating func readEncoded(budget: inout DecodeBudget) throws(SyncKernelError) -> [UInt8] {
        let start = offset
        try skip()
        try budget.chargeBytes(offset - start)
        return Array(input[start..<offset])
    }

    /// The next item as an unsigned integer.
    package mutating func readUInt() throws(SyncKernelError) -> UInt64 {
        let (major, argument) = try head()
        guard major == 0 else { throw SyncKernelError(.unexpectedType, "expected an unsigned integer") }
        return argument
    }

    /// The next item as a signed 64-bit integer.
    package mutating func readInt64() throws(SyncKernelError) -> Int64 {
        let (major, argument) = try head()
        switch major {
        case 0 where argument <= UInt64(Int64.max): return Int64(argument)
        case 1 where argument <= UInt64(Int64.max): return -1 - Int64(argument)
        default: throw SyncKernelError(.unexpectedType, "expected a 64-bit integer")
        }
    }

    /// The next item as an `Int`, refusing values that do not fit.
    package mutating func readInt() throws(SyncKernelError) -> Int {
        let value = try readInt64()
        guard let narrowed = Int(exactly: value) else { throw SyncKernelError(.limitExceeded, "integer out of range") }
        return narrowed
    }

    /// The range of the next item's content when it is a byte string.
    package mutating func readByteRange() throws(SyncKernelError) -> Range<Int> {
        let (major, argument) = try head()
        guard major == 2 else { throw SyncKernelError(.unexpectedType, "expected a byte string") }
        return try take(argument)
    }

    /// The next item as a byte string.
    package mutating func readBytes(budget: inout DecodeBudget) throws(SyncKernelError) -> [UInt8] {
        let range = try readByteRange()
        try budget.chargeBytes(range.count)
        return Array(input[range])
    }

    /// The next item as a byte string of exactly `count` bytes.
    package mutating func readBytes(count: Int, budget: inout DecodeBudget) throws(SyncKernelError) -> [UInt8] {
        let range = try readByteRange()
        guard range.count == count else { throw SyncKernelError(.unexpectedType, "expected \(count) bytes") }
        try budget.chargeBytes(range.count)
        return Array(input[range])
    }

    /// The next item as bytes, or nil for CBOR null.
    package mutating func readNullableBytes(budget: inout DecodeBudget) throws(SyncKernelError) -> [UInt8]? {
        guard !isAtNull else {
            offset += 1
            return nil
        }
        return try readBytes(budget: &budget)
    }

    /// Steps over the next item when it is CBOR null and says so; leaves the cursor where it is
    /// otherwise.
    package mutating func skipNull() -> Bool {
        guard isAtNull else { return false }
        offset += 1
        return true
    }

    /// The range of the next item's UTF-8 content when it is a text string.
    package mutating func readTextRange() throws(SyncKernelError) -> Range<Int> {
        let (major, argument) = try head()
        guard major == 3 else { throw SyncKernelError(.unexpectedType, "expected text") }
        return try take(argument)
    }

    /// The next item as text.
    package mutating func readText(budget: inout DecodeBudget) throws(SyncKernelError) -> String {
        let range = try readTextRange()
        try budget.chargeText(utf8Count: range.count)
        return String(decoding: input[range], as: UTF8.self)
    }

    /// The next item as a boolean.
    package mutating func readBool() throws(SyncKernelError) -> Bool {
        let (major, argument) = try head()
        guard major == 7, argument == 20 || argument == 21 else { throw SyncKernelError(.unexpectedType, "expected a boolean") }
        return argument == 21
    }

    /// The next item's element count when it is an array; its elements follow.
    package mutating func readArrayHeader() throws(SyncKernelError) -> Int {
        let (major, argument) = try head()
        guard major == 4 else { throw SyncKernelError(.unexpectedType, "expected an array") }
        return Int(try count(argument))
    }

    /// The next item's entry count when it is a map; its keys and values follow, alternating.
    package mutating func readMapHeader() throws(SyncKernelError) -> Int {
        let (major, argument) = try head()
        guard major == 5 else { throw SyncKernelError(.unexpectedType, "expected a map") }
        return Int(try count(argument))
    }

    /// The next item as a `CBORValue` tree, each node charged as it is built.
    package mutating func readValue(budget: inout DecodeBudget) throws(SyncKernelError) -> CBORValue {
        let (major, argument) = try head()
        switch major {
        case 0:
            try budget.chargeBox(payload: 8)
            return .unsigned(argument)
        case 1:
            try budget.chargeBox(payload: 8)
            return .negative(argument)
        case 2:
            let range = try take(argument)
            try budget.chargeBox(payload: 8)
            try budget.chargeBytes(range.count)
            return .bytes(Array(input[range]))
        case 3:
            let range = try take(argument)
            try budget.chargeBox(payload: 16)
            try budget.chargeText(utf8Count: range.count)
            return .text(String(decoding: input[range], as: UTF8.self))
        case 4:
            let count = Int(try count(argument))
            try budget.chargeBox(payload: 8)
            try budget.chargeArray(of: CBORValue.self, count: count)
            var items: [CBORValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try readValue(budget: &budget)) }
            return .array(items)
        case 5:
            let count = Int(try count(argument))
            try budget.chargeBox(payload: 8)
            try budget.chargeArray(of: CBORMapEntry.self, count: count)
            var entries: [CBORMapEntry] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let key = try readValue(budget: &budget)
                entries.append(CBORMapEntry(key: key, value: try readValue(budget: &budget)))
            }
            return .map(entries)
        case 6:
            try budget.chargeBox(payload: 8 + MemoryLayout<CBORValue>.size)
            return .tagged(argument, try readValue(budget: &budget))
        default:
            switch argument {
            case 20, 21:
                try budget.chargeBox(payload: 1)
                return .bool(argument == 21)
            case 22:
                return .null
            default:
                throw SyncKernelError(.unsupportedEncoding, "float or simple value")
            }
        }
    }

    /// Scans the map that comes next, calling `visit` with the UTF-8 range of each text key
    /// and a cursor at its value; leaves this cursor after the map.
    package mutating func forEachTextKey(_ visit: (Range<Int>, CBORCursor) throws(SyncKernelError) -> Void) throws(SyncKernelError) {
        let entries = try readMapHeader()
        for _ in 0..<entries {
            if isAtText {
                let key = try readTextRange()
                try visit(key, self)
            } else {
                try skip()
            }
            try skip()
        }
    }

    /// Whether the UTF-8 bytes at `range` spell `name`.
    ///
    /// For the kernel's key names (lower-case ASCII letters) this is the same test as comparing
    /// decoded strings: no other UTF-8 text is canonically equivalent to one of them.
    package func text(at range: Range<Int>, is name: StaticString) -> Bool {
        name.withUTF8Buffer { input[range].elementsEqual($0) }
    }

    /// Reads an item's head: its major type and argument (for major type 7, the simple value).
    private mutating func head() throws(SyncKernelError) -> (major: UInt8, argument: UInt64) {
        guard offset < input.count else { throw SyncKernelError(.truncatedInput) }
        let initial = input[offset]
        offset += 1
        let major = initial >> 5
        let info = initial & 0x1f
        if major == 7 { return (7, UInt64(info)) }
        switch info {
        case 0..<24:
            return (major, UInt64(info))
        case 24, 25, 26, 27:
            let width = 1 << Int(info - 24)
            guard width <= input.count - offset else { throw SyncKernelError(.truncatedInput) }
            var value: UInt64 = 0
            for index in offset..<offset + width { value = value << 8 | UInt64(input[index]) }
            offset += width
            return (major, value)
        default:
            throw SyncKernelError(.unsupportedEncoding, "reserved additional information")
        }
    }

    /// The range of the next `count` bytes, and moves past them.
    private mutating func take(_ count: UInt64) throws(SyncKernelError) -> Range<Int> {
        guard count <= UInt64(input.count - offset) else { throw SyncKernelError(.truncatedInput) }
        let start = offset
        offset += Int(count)
        return start..<offset
    }

    /// A container's count, which can never exceed the bytes left (each item takes one at least).
    private func count(_ argument: UInt64) throws(SyncKernelError) -> UInt64 {
        guard argument <= UInt64(input.count - offset) else { throw SyncKernelError(.truncatedInput) }
        return argument
    }
}
