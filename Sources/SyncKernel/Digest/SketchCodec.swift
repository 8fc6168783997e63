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
}
