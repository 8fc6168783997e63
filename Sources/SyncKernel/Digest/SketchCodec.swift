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
    /// symbols, a LEB128 key-sum width (the longest key sum), a form byte (1: the counts after the
    /// first are residues modulo 256, one byte each; 0: every count a zigzag LEB128), then each
    /// symbol: its count, its key sum padded with zero bytes to the width, its 8-byte tag sum.
    /// One length for every key sum saves each symbol its own, and residues save the two or three
    /// bytes of a count near a large set's size.
    ///
    /// Invariant: `decodeCompact(encodeCompact(symbols, countResidues: r))` gives the symbols
    /// back, with each count after the first sign-extended from its low byte when `r`.
    package static func encodeCompact(_ symbols: [CodedSymbol], countResidues: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        LEB128.append(UInt64(symbols.count), to: &bytes)
        guard !symbols.isEmpty else { return bytes }
        let width = symbols.reduce(0) { max($0, $1.keySum.count) }
        bytes.reserveCapacity(2 * LEB128.maxBytes + 1 + symbols.count * (width + 9) + LEB128.maxBytes)
        LEB128.append(UInt64(width), to: &bytes)
        bytes.append(countResidues ? 1 : 0)
        for (index, symbol) in symbols.enumerated() {
            if countResidues, index > 0 {
                bytes.append(UInt8(truncatingIfNeeded: symbol.count))
            } else {
                LEB128.append(UInt64(bitPattern: symbol.count << 1 ^ symbol.count >> 63), to: &bytes)
            }
            bytes.append(contentsOf: symbol.keySum)
            bytes.append(contentsOf: repeatElement(0, count: width - symbol.keySum.count))
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: symbol.tagSum >> UInt64(shift)))
            }
        }
        return bytes
    }

    /// Unpacks symbols written by `encodeCompact` that fill `range` of `bytes`, charging `budget`
    /// for the symbols kept; returns them and whether their counts after the first are residues
    /// (sign-extended from their byte).
    ///
    /// Invariant: accepts exactly what `encodeCompact` writes: throws `.malformedFrame` for more
    /// than `maxSymbols` symbols, a width above `CodedSymbol.maxKeySumBytes` or one no key sum
    /// fills (not the longest), a form byte other than 0 or 1, truncated input, trailing bytes or
    /// a varint not in shortest form; allocates in proportion to the input, never to a claim.
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
        let declaredWidth = try LEB128.read(bytes, at: &offset, end: end)
        guard declaredWidth <= UInt64(CodedSymbol.maxKeySumBytes), offset < end, bytes[offset] <= 1 else {
            throw SyncKernelError(.malformedFrame, "a compact sketch's key-sum width or form is out of range")
        }
        let width = Int(declaredWidth)
        let residues = bytes[offset] == 1
        offset += 1
        let reserved = min(count, max(0, end - offset) / (width + 9))
        try budget.chargeArray(of: CodedSymbol.self, count: reserved)
        var symbols: [CodedSymbol] = []
        symbols.reserveCapacity(reserved)
        var longest = 0
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
            guard end - offset >= width + 8 else { throw SyncKernelError(.malformedFrame, "a sketch symbol runs past the end") }
            var length = width
            while length > 0, bytes[offset + length - 1] == 0 { length -= 1 }
            try budget.chargeBytes(length)
            let keySum = Array(bytes[offset..<offset + length])
            longest = max(longest, length)
            offset += width
            var tagSum: UInt64 = 0
            for byte in bytes[offset..<offset + 8] { tagSum = tagSum << 8 | UInt64(byte) }
            offset += 8
            symbols.append(CodedSymbol(count: symbolCount, keySum: keySum, tagSum: tagSum))
        }
        guard offset == end else { throw SyncKernelError(.malformedFrame, "bytes after the sketch symbols") }
        guard longest == width else { throw SyncKernelError(.malformedFrame, "a compact sketch's key-sum width is not its longest") }
        return (symbols, residues)
    }
}
