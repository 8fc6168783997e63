/// The wire form of a run of coded symbols: a LEB128 symbol count, then each symbol's
/// `CodedSymbol.encoded()` bytes, one after the other (each is self-delimiting: its key sum's
/// length is inside it and its tag sum is 8 bytes).
///
/// Invariants: one run of symbols has one encoding, and `decode` accepts exactly the encodings
/// `encode` writes (within `maxSymbols`); decoding treats every byte as hostile, never traps,
/// and allocates in proportion to the input's length, never to a count or length it claims.
package enum SketchCodec {
    /// The fewest bytes one symbol takes on the wire: count, key-sum length, tag sum.
    private static let minimumSymbolBytes = 10

    /// Packs `symbols` for the wire.
    ///
    /// Invariant: `decode(encode(symbols), maxSymbols: symbols.count)` gives the symbols back.
    package static func encode(_ symbols: some Collection<CodedSymbol>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(LEB128.maxBytes + symbols.count * minimumSymbolBytes)
        LEB128.append(UInt64(symbols.count), to: &bytes)
        for symbol in symbols { bytes.append(contentsOf: symbol.encoded()) }
        return bytes
    }

    /// Unpacks symbols written by `encode`.
    ///
    /// Invariant: throws `.malformedFrame` for more than `maxSymbols` symbols, truncated input,
    /// trailing bytes, a non-canonical varint, and any symbol `CodedSymbol(decoding:)` refuses.
    package static func decode(_ bytes: [UInt8], maxSymbols: Int) throws(SyncKernelError) -> [CodedSymbol] {
        var budget = DecodeBudget(inputBytes: bytes.count)
        return try decode(bytes, in: 0..<bytes.count, maxSymbols: maxSymbols, budget: &budget)
    }

    /// Unpacks symbols written by `encode` that fill `range` of `bytes` (a frame's byte string,
    /// read in place), charging `budget` for the symbols kept; refuses what
    /// `decode(_:maxSymbols:)` refuses.
    package static func decode(_ bytes: [UInt8], in range: Range<Int>, maxSymbols: Int,
                               budget: inout DecodeBudget) throws(SyncKernelError) -> [CodedSymbol] {
        let end = min(range.upperBound, bytes.count)
        var offset = range.lowerBound
        let declared = try LEB128.read(bytes, at: &offset, end: end)
        guard declared <= UInt64(max(0, maxSymbols)) else {
            throw SyncKernelError(.malformedFrame, "more sketch symbols than allowed")
        }
        let count = Int(declared)
        let reserved = min(count, max(0, end - offset) / minimumSymbolBytes)
        try budget.chargeArray(of: CodedSymbol.self, count: reserved)
        var symbols: [CodedSymbol] = []
        symbols.reserveCapacity(reserved)
        for _ in 0..<count {
            let start = offset
            _ = try LEB128.read(bytes, at: &offset, end: end)
            let keySumLength = try LEB128.read(bytes, at: &offset, end: end)
            guard keySumLength <= UInt64(CodedSymbol.maxKeySumBytes), keySumLength + 8 <= UInt64(end - offset) else {
                throw SyncKernelError(.malformedFrame, "a sketch symbol runs past the end")
            }
            let symbolEnd = offset + Int(keySumLength) + 8
            try budget.chargeBytes(Int(keySumLength))
            guard let symbol = CodedSymbol.parse(bytes, from: start, to: symbolEnd) else {
                throw SyncKernelError(.malformedFrame, "a sketch symbol is not canonical")
            }
            symbols.append(symbol)
            offset = symbolEnd
        }
        guard offset == end else {
            throw SyncKernelError(.malformedFrame, "bytes after the sketch symbols")
        }
        return symbols
    }

    /// The compact frame's form of a run of symbols: a LEB128 symbol count and, when there are
    /// symbols, a form byte (bit 0: the counts after the first are residues modulo 256, one byte
    /// each, else zigzag LEB128 like the first; bit 1: every key sum is padded with zero bytes to
    /// one width, written once as a LEB128 after the form byte, else each key sum carries its
    /// own LEB128 length), then each symbol: its count, its key sum, its 8-byte tag sum. The
    /// encoder pads to one width exactly when that takes no more bytes than the lengths would
    /// (a dense sketch of keys of one length: one byte saved per symbol; a sparse one keeps its
    /// empty key sums empty), and residues save the two or three bytes of a count near a large
    /// set's size.
    ///
    /// Invariant: `decodeCompact(encodeCompact(symbols, countResidues: r))` gives the symbols
    /// back, with each count after the first sign-extended from its low byte when `r`.
    package static func encodeCompact(_ symbols: [CodedSymbol], countResidues: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        LEB128.append(UInt64(symbols.count), to: &bytes)
        guard !symbols.isEmpty else { return bytes }
        let width = symbols.reduce(0) { max($0, $1.keySum.count) }
        let padded = padsToOneWidth(count: symbols.count, width: width, lengths: symbols.map(\.keySum.count))
        bytes.reserveCapacity(2 * LEB128.maxBytes + 1 + symbols.count * (width + LEB128.maxBytes + 8) + LEB128.maxBytes)
        bytes.append((countResidues ? 1 : 0) | (padded ? 2 : 0))
        if padded { LEB128.append(UInt64(width), to: &bytes) }
        for (index, symbol) in symbols.enumerated() {
            if countResidues, index > 0 {
                bytes.append(UInt8(truncatingIfNeeded: symbol.count))
            } else {
                LEB128.append(UInt64(bitPattern: symbol.count << 1 ^ symbol.count >> 63), to: &bytes)
            }
            if padded {
                bytes.append(contentsOf: symbol.keySum)
                bytes.append(contentsOf: repeatElement(0, count: width - symbol.keySum.count))
            } else {
                LEB128.append(UInt64(symbol.keySum.count), to: &bytes)
                bytes.append(contentsOf: symbol.keySum)
            }
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: symbol.tagSum >> UInt64(shift)))
            }
        }
        return bytes
    }

    /// Whether `count` key sums of `lengths` (the longest `width`) take no more bytes padded to
    /// one width than each with its own length.
    private static func padsToOneWidth(count: Int, width: Int, lengths: [Int]) -> Bool {
        count * width <= lengths.reduce(0) { $0 + LEB128.byteCount(UInt64($1)) + $1 }
    }

    /// Unpacks symbols written by `encodeCompact` that fill `range` of `bytes`, charging `budget`
    /// for the symbols kept; returns them and whether their counts after the first are residues
    /// (sign-extended from their byte).
    ///
    /// Invariant: accepts exactly what `encodeCompact` writes: throws `.malformedFrame` for more
    /// than `maxSymbols` symbols, a form byte with other bits than its two, a key sum longer than
    /// `CodedSymbol.maxKeySumBytes`, a padded width no key sum fills (not the longest), a key sum
    /// with its own length that ends in a zero byte, padding chosen where lengths are shorter or
    /// lengths where padding is no longer, truncated input, trailing bytes or a varint not in
    /// shortest form; allocates in proportion to the input, never to a claim.
    package static func decodeCompact(_ bytes: [UInt8], in range: Range<Int>, maxSymbols: Int,
                                      budget: inout DecodeBudget) throws(SyncKernelError) -> (symbols: [CodedSymbol], countResidues: Bool) {
        let end = min(range.upperBound, bytes.count)
        var offset = range.lowerBound
        let declared = try LEB128.read(bytes, at: &offset, end: end)
        guard declared <= UInt64(max(0, maxSymbols)) else {
            throw SyncKernelError(.malformedFrame, "more sketch symbols than allowed")
        }
        let count = Int(declared)
        guard count > 0 else {
            guard offset == end else { throw SyncKernelError(.malformedFrame, "bytes after the sketch symbols") }
            return ([], false)
        }
        guard offset < end, bytes[offset] <= 3 else { throw SyncKernelError(.malformedFrame, "a compact sketch's form is out of range") }
        let residues = bytes[offset] & 1 == 1
        let padded = bytes[offset] & 2 == 2
        offset += 1
        var width = 0
        if padded {
            let declaredWidth = try LEB128.read(bytes, at: &offset, end: end)
            guard declaredWidth <= UInt64(CodedSymbol.maxKeySumBytes) else {
                throw SyncKernelError(.malformedFrame, "a compact sketch's key-sum width is out of range")
            }
            width = Int(declaredWidth)
        }
        let reserved = min(count, max(0, end - offset) / (width + (padded ? 9 : 10)))
        try budget.chargeArray(of: CodedSymbol.self, count: reserved)
        var symbols: [CodedSymbol] = []
        symbols.reserveCapacity(reserved)
        var longest = 0
        var lengths: [Int] = []
        lengths.reserveCapacity(reserved)
        for index in 0..<count {
            let symbolCount: Int64
            if residues, index > 0 {
                guard offset < end else { throw SyncKernelError(.malformedFrame, "a sketch symbol runs past the end") }
                symbolCount = Int64(Int8(bitPattern: bytes[offset]))
                offset += 1
            } else {
                let zigzag = try LEB128.read(bytes, at: &offset, end: end)
                symbolCount = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
            }
            var stored = width
            if !padded {
                let declaredLength = try LEB128.read(bytes, at: &offset, end: end)
                guard declaredLength <= UInt64(CodedSymbol.maxKeySumBytes) else {
                    throw SyncKernelError(.malformedFrame, "a sketch symbol's key sum is too long")
                }
                stored = Int(declaredLength)
            }
            guard end - offset >= stored + 8 else { throw SyncKernelError(.malformedFrame, "a sketch symbol runs past the end") }
            var length = stored
            while length > 0, bytes[offset + length - 1] == 0 { length -= 1 }
            guard padded || length == stored else { throw SyncKernelError(.malformedFrame, "a sketch symbol's key sum ends in a zero byte") }
            try budget.chargeBytes(length)
            let keySum = Array(bytes[offset..<offset + length])
            longest = max(longest, length)
            lengths.append(length)
            offset += stored
            var tagSum: UInt64 = 0
            for byte in bytes[offset..<offset + 8] { tagSum = tagSum << 8 | UInt64(byte) }
            offset += 8
            symbols.append(CodedSymbol(count: symbolCount, keySum: keySum, tagSum: tagSum))
        }
        guard offset == end else { throw SyncKernelError(.malformedFrame, "bytes after the sketch symbols") }
        guard !padded || longest == width else { throw SyncKernelError(.malformedFrame, "a compact sketch's key-sum width is not its longest") }
        guard padsToOneWidth(count: count, width: longest, lengths: lengths) == padded else {
            throw SyncKernelError(.malformedFrame, "a compact sketch's key sums are not in their shorter form")
        }
        return (symbols, residues)
    }
}
