/// One coded symbol of a rateless sketch: the signed count, XOR of framed keys and XOR of the
/// 32-bit tags of the items mapped to it.
///
/// Invariants: the tag sum has exactly 32 bits (its type), and every encoding carries it in
/// `tagBytes` bytes, so no form can hold more; `keySum` never ends in a zero byte (every initialiser and mutating method trims
/// it), so one set of items has one representation and `==` compares contents; every update is
/// its own inverse (adding then removing an item restores the symbol exactly), and counts wrap
/// rather than trap, so hostile symbols can be combined freely.
package struct CodedSymbol: Sendable, Hashable {
    /// Items added minus items removed.
    package var count: Int64
    /// XOR of the framed keys of the items, trailing zero bytes trimmed.
    package var keySum: [UInt8]
    /// XOR of the items' tags.
    package var tagSum: UInt32

    /// The bytes of a tag sum in every encoding: 4, big-endian.
    package static let tagBytes = 4

    /// The longest `keySum` a blob may carry: room for the longest framed key with slack.
    package static let maxKeySumBytes = SketchItem.maxKeyBytes + 5

    /// The symbol of the empty set.
    package static let zero = CodedSymbol()

    /// Whether the symbol is the empty set's.
    ///
    /// Invariant: true exactly when count, tag sum and every key-sum byte are zero.
    package var isZero: Bool {
        count == 0 && tagSum == 0 && keySum.allSatisfy { $0 == 0 }
    }

    /// A symbol with the given parts, its key sum trimmed of trailing zero bytes.
    ///
    /// Invariant: the result's `keySum` never ends in a zero byte.
    package init(count: Int64 = 0, keySum: [UInt8] = [], tagSum: UInt32 = 0) {
        self.count = count
        self.keySum = keySum
        self.tagSum = tagSum
        trimKeySum()
    }

    /// Adds (`direction` +1) or removes (-1) `item`: the count moves by `direction`, the framed
    /// key and the tag are XOR-ed in.
    ///
    /// Invariant: `keySum` stays trimmed; applying `item` with +1 and then -1 restores the symbol.
    package mutating func apply(_ item: SketchItem, direction: Int64) {
        mix(key: item.key, tag: item.tag, direction: direction)
    }

    /// Removes the contents of `other`: counts subtract, key and tag sums XOR.
    ///
    /// Invariant: `keySum` stays trimmed; subtracting a symbol of the same items gives `zero`.
    package mutating func subtract(_ other: CodedSymbol) {
        count &-= other.count
        tagSum ^= other.tagSum
        guard !other.keySum.isEmpty else { return }
        if keySum.count < other.keySum.count {
            keySum.append(contentsOf: repeatElement(0, count: other.keySum.count - keySum.count))
        }
        keySum.withUnsafeMutableBufferPointer { sum in
            other.keySum.withUnsafeBufferPointer { bytes in
                for position in 0..<bytes.count {
                    sum[position] ^= bytes[position]
                }
            }
        }
        trimKeySum()
    }

    /// The item this symbol holds alone, when it is pure.
    ///
    /// Invariant: non-nil only when the count is +1 or -1, the key sum parses as exactly one
    /// framed key (its shortest-form length `L <= SketchItem.maxKeyBytes`, at most `L` key
    /// bytes after it, the key's own trimmed trailing zero bytes restored) and the tag sum's low
    /// 16 bits are the low 16 bits of `SketchItem.keyHash` of that key under the tag sum's high
    /// 16 bits; the item returned carries that hash as its seed. A mixture of items passes about
    /// once in 65,536 tests (the decoder adds its own checks, `SketchDecoder`). Allocates at
    /// most `L` bytes; never traps.
    package var pureItem: SketchItem? {
        guard count == 1 || count == -1 else { return nil }
        var end = keySum.count
        while end > 0, keySum[end - 1] == 0 {
            end -= 1
        }
        var key: [UInt8] = []
        if end > 0 {
            var offset = 0
            guard let declared = try? LEB128.read(keySum, at: &offset, end: end),
                  declared <= UInt64(SketchItem.maxKeyBytes) else { return nil }
            let length = Int(declared)
            guard end - offset <= length else { return nil }
            key.reserveCapacity(length)
            key.append(contentsOf: keySum[offset..<end])
            key.append(contentsOf: repeatElement(0, count: length - key.count))
        }
        let seed = SketchItem.keyHash(key, identity: UInt16(truncatingIfNeeded: tagSum >> 16))
        guard UInt16(truncatingIfNeeded: tagSum) == UInt16(truncatingIfNeeded: seed) else {
            return nil
        }
        return SketchItem(key: key, tag: tagSum, seed: seed)
    }

    /// The persisted form (and each symbol of the spec frame's `SketchCodec.encode`): zigzag
    /// LEB128 count, LEB128 key-sum length, the key sum, then the tag sum as 4 big-endian bytes.
    ///
    /// Invariant: `CodedSymbol(decoding: encoded())` is this symbol, and equal symbols encode equal.
    package func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(2 * LEB128.maxBytes + keySum.count + Self.tagBytes)
        append(to: &bytes)
        return bytes
    }

    /// Appends the persisted form (`encoded()`) to `bytes`, allocating nothing of its own.
    ///
    /// Invariant: appends exactly the bytes `encoded()` returns.
    package func append(to bytes: inout [UInt8]) {
        LEB128.append(UInt64(bitPattern: count << 1 ^ count >> 63), to: &bytes)
        LEB128.append(UInt64(keySum.count), to: &bytes)
        bytes.append(contentsOf: keySum)
        appendTagSum(to: &bytes)
    }

    /// Reads a persisted symbol blob.
    ///
    /// Invariant: accepts exactly the bytes `encoded()` writes; anything else (truncation,
    /// trailing bytes, a varint not in shortest form, a key sum ending in a zero byte or longer
    /// than `maxKeySumBytes`, a tag sum of other than 4 bytes, such as the 8 of an earlier
    /// format) throws `.corruptBookkeeping`.
    package init(decoding bytes: [UInt8]) throws(SyncKernelError) {
        guard let symbol = Self.parse(bytes, from: 0, to: bytes.count) else {
            throw SyncKernelError(.corruptBookkeeping, "a sketch symbol blob is not canonical")
        }
        self = symbol
    }

    /// Parses the encoded symbol filling `bytes[start..<end]`, or nil when those bytes are not
    /// exactly one canonical encoding.
    ///
    /// Invariant: reads only inside `start..<end` (clamped to the array) and allocates at most
    /// `maxKeySumBytes` bytes.
    package static func parse(_ bytes: [UInt8], from start: Int, to end: Int) -> CodedSymbol? {
        let stop = min(end, bytes.count)
        guard start >= 0, start <= stop else { return nil }
        var offset = start
        guard let zigzag = try? LEB128.read(bytes, at: &offset, end: stop),
              let declared = try? LEB128.read(bytes, at: &offset, end: stop),
              declared <= UInt64(maxKeySumBytes) else { return nil }
        let length = Int(declared)
        guard stop - offset == length + tagBytes else { return nil }
        let keySum = Array(bytes[offset..<offset + length])
        guard keySum.last != 0 else { return nil }
        let count = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
        return CodedSymbol(count: count, keySum: keySum, tagSum: readTagSum(bytes, at: offset + length))
    }

    /// Appends the tag sum's `tagBytes` big-endian bytes.
    ///
    /// Invariant: `readTagSum` of the appended bytes is `tagSum`.
    package func appendTagSum(to bytes: inout [UInt8]) {
        for shift in stride(from: 24, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: tagSum >> UInt32(shift)))
        }
    }

    /// The tag sum in the `tagBytes` big-endian bytes at `offset`.
    ///
    /// Invariant: `offset + tagBytes <= bytes.count` is the caller's duty (checked by a precondition).
    package static func readTagSum(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        precondition(offset >= 0 && offset + tagBytes <= bytes.count, "a tag sum runs past the bytes")
        var tagSum: UInt32 = 0
        for byte in bytes[offset..<offset + tagBytes] {
            tagSum = tagSum << 8 | UInt32(byte)
        }
        return tagSum
    }

    /// XORs the framing of `key` (its length varint, then its bytes) into the key sum and `tag`
    /// into the tag sum, and moves the count by `direction`; allocates only to lengthen the key sum.
    ///
    /// Invariant: the same change as `apply(SketchItem(key: key, tag: tag), direction:)`.
    package mutating func mix(key: [UInt8], tag: UInt32, direction: Int64) {
        count &+= direction
        tagSum ^= tag
        let framedCount = LEB128.byteCount(UInt64(key.count)) + key.count
        if keySum.count < framedCount {
            keySum.append(contentsOf: repeatElement(0, count: framedCount - keySum.count))
        }
        keySum.withUnsafeMutableBufferPointer { sum in
            var rest = UInt64(key.count)
            var position = 0
            while rest >= 0x80 {
                sum[position] ^= UInt8(truncatingIfNeeded: rest) | 0x80
                rest >>= 7
                position += 1
            }
            sum[position] ^= UInt8(truncatingIfNeeded: rest)
            position += 1
            key.withUnsafeBufferPointer { bytes in
                for index in 0..<bytes.count {
                    sum[position + index] ^= bytes[index]
                }
            }
        }
        trimKeySum()
    }

    /// Drops the key sum's trailing zero bytes, keeping its storage.
    ///
    /// Invariant: afterwards `keySum` is empty or ends in a non-zero byte.
    private mutating func trimKeySum() {
        var end = keySum.count
        while end > 0, keySum[end - 1] == 0 {
            end -= 1
        }
        if end < keySum.count {
            keySum.removeLast(keySum.count - end)
        }
    }
}
