/// The wire form of a run of coded symbols: a LEB128 symbol count, then each symbol's
/// `CodedSymbol.encoded()` bytes, one after the other (each is self-delimiting: its key sum's
/// length is inside it and its tag sum is `CodedSymbol.tagBytes`, 4, bytes).
///
/// Invariants: one run of symbols has one encoding, and `decode` accepts exactly the encodings
/// `encode` writes (within `maxSymbols`); no form carries a tag sum wider than 32 bits (the
/// earlier 8-byte tag sums are refused as misframed); decoding treats every byte as hostile,
/// never traps, and allocates in proportion to the input's length, never to a count or length
/// it claims.
package enum SketchCodec {
    /// The fewest bytes one symbol takes on the wire: count, key-sum length, tag sum.
    private static let minimumSymbolBytes = 2 + CodedSymbol.tagBytes

    /// The compact form byte's bit for counts after the first as residues modulo 256.
    private static let residueBit: UInt8 = 1
    /// The compact form byte's bit for key sums padded to one width.
    private static let paddedBit: UInt8 = 2
    /// The compact form byte's bit for an implied key length (only with `paddedBit`).
    private static let impliedLengthBit: UInt8 = 4

    /// Packs `symbols` for the wire.
    ///
    /// Invariant: `decode(encode(symbols), maxSymbols: symbols.count)` gives the symbols back.
    package static func encode(_ symbols: some Collection<CodedSymbol>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(LEB128.maxBytes + symbols.count * minimumSymbolBytes)
        LEB128.append(UInt64(symbols.count), to: &bytes)
        for symbol in symbols { symbol.append(to: &bytes) }
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
            guard keySumLength <= UInt64(CodedSymbol.maxKeySumBytes),
                  keySumLength + UInt64(CodedSymbol.tagBytes) <= UInt64(end - offset) else {
                throw SyncKernelError(.malformedFrame, "a sketch symbol runs past the end")
            }
            let symbolEnd = offset + Int(keySumLength) + CodedSymbol.tagBytes
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
    /// own LEB128 length; bit 2, only with bit 1: an implied key length `L`, one byte below 0x80
    /// written after the width, and every padded key sum's first byte left out), then each
    /// symbol: its count, its key sum (with bit 2 without its first byte), its 4-byte tag sum.
    /// The encoder pads to one width exactly when that takes no more bytes than the lengths
    /// would (a dense sketch of keys of one length: one byte saved per symbol; a sparse one keeps
    /// its empty key sums empty), and implies the length exactly when `impliedLength` finds one:
    /// every padded key sum's first byte is `L` for an odd count and 0 for an even one (the
    /// framed keys of one single-byte length `L`: an odd number of equal length bytes XOR to
    /// `L`, an even number to 0), which saves another byte per symbol. Residues save the two or
    /// three bytes of a count near a large set's size; a residue has its count's parity, so the
    /// receiver restores the left-out byte before it restores the counts.
    ///
    /// Invariant: `decodeCompact(encodeCompact(symbols, countResidues: r))` gives the symbols
    /// back, with each count after the first sign-extended from its low byte when `r`.
    package static func encodeCompact(_ symbols: [CodedSymbol], countResidues: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        LEB128.append(UInt64(symbols.count), to: &bytes)
        guard !symbols.isEmpty else { return bytes }
        let width = symbols.reduce(0) { max($0, $1.keySum.count) }
        let padded = padsToOneWidth(count: symbols.count, width: width, lengths: symbols.map(\.keySum.count))
        let implied = padded ? impliedLength(symbols, width: width) : nil
        bytes.reserveCapacity(2 * LEB128.maxBytes + 2 + symbols.count * (width + LEB128.maxBytes + CodedSymbol.tagBytes))
        bytes.append((countResidues ? residueBit : 0) | (padded ? paddedBit : 0) | (implied == nil ? 0 : impliedLengthBit))
        if padded { LEB128.append(UInt64(width), to: &bytes) }
        if let implied { bytes.append(implied) }
        for (index, symbol) in symbols.enumerated() {
            if countResidues, index > 0 {
                bytes.append(UInt8(truncatingIfNeeded: symbol.count))
            } else {
                LEB128.append(UInt64(bitPattern: symbol.count << 1 ^ symbol.count >> 63), to: &bytes)
            }
            if padded {
                bytes.append(contentsOf: symbol.keySum.dropFirst(implied == nil ? 0 : 1))
                let written = implied == nil ? symbol.keySum.count : max(0, symbol.keySum.count - 1)
                bytes.append(contentsOf: repeatElement(0, count: (implied == nil ? width : width - 1) - written))
            } else {
                LEB128.append(UInt64(symbol.keySum.count), to: &bytes)
                bytes.append(contentsOf: symbol.keySum)
            }
            symbol.appendTagSum(to: &bytes)
        }
        return bytes
    }

    /// Whether `count` key sums of `lengths` (the longest `width`) take no more bytes padded to
    /// one width than each with its own length.
    private static func padsToOneWidth(count: Int, width: Int, lengths: [Int]) -> Bool {
        count * width <= lengths.reduce(0) { $0 + LEB128.byteCount(UInt64($1)) + $1 }
    }

    /// The implied key length of `symbols` padded to `width`, or nil when there is none: `L` is
    /// the first padded key-sum byte of the first symbol with an odd count, and it is implied
    /// when `width >= 1`, some count is odd, `L < 0x80` (a single-byte LEB128 length) and every
    /// symbol's first padded key-sum byte is `L` for an odd count and 0 for an even one.
    ///
    /// Invariant: a pure function of the counts' parities and the key sums' first bytes, so the
    /// encoder and the decoder's check agree; with no odd count the byte would be 0 everywhere
    /// and `L` undetermined, so nothing is implied.
    private static func impliedLength(_ symbols: [CodedSymbol], width: Int) -> UInt8? {
        guard width >= 1, let odd = symbols.first(where: { $0.count & 1 == 1 }) else { return nil }
        let length = odd.keySum.first ?? 0
        guard length < 0x80 else { return nil }
        for symbol in symbols where (symbol.keySum.first ?? 0) != (symbol.count & 1 == 1 ? length : 0) {
            return nil
        }
        return length
    }

    /// Unpacks symbols written by `encodeCompact` that fill `range` of `bytes`, charging `budget`
    /// for the symbols kept; returns them and whether their counts after the first are residues
    /// (sign-extended from their byte).
    ///
    /// Invariant: accepts exactly what `encodeCompact` writes: throws `.malformedFrame` for more
    /// than `maxSymbols` symbols, a form byte with other bits than its three or the implied-length
    /// bit without padding, a key sum longer than `CodedSymbol.maxKeySumBytes`, a padded width no
    /// key sum fills (not the longest), a key sum with its own length that ends in a zero byte,
    /// padding chosen where lengths are shorter or lengths where padding is no longer, an implied
    /// length where `impliedLength` of the restored symbols finds none or another (a width of 0,
    /// no odd count, a length byte of 0x80 or more), padded key sums written whole where a length
    /// is implied, truncated input, trailing bytes (such as an earlier build's 8-byte tag sums)
    /// or a varint not in shortest form; allocates in proportion to the input, never to a claim.
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
        guard offset >= 0, offset < end, bytes[offset] & ~(residueBit | paddedBit | impliedLengthBit) == 0,
              bytes[offset] & impliedLengthBit == 0 || bytes[offset] & paddedBit != 0 else {
            throw SyncKernelError(.malformedFrame, "a compact sketch's form is out of range")
        }
        let residues = bytes[offset] & residueBit != 0
        let padded = bytes[offset] & paddedBit != 0
        let implies = bytes[offset] & impliedLengthBit != 0
        offset += 1
        var width = 0
        if padded {
            let declaredWidth = try LEB128.read(bytes, at: &offset, end: end)
            guard declaredWidth <= UInt64(CodedSymbol.maxKeySumBytes) else {
                throw SyncKernelError(.malformedFrame, "a compact sketch's key-sum width is out of range")
            }
            width = Int(declaredWidth)
        }
        var implied: UInt8 = 0
        if implies {
            guard width >= 1, offset < end, bytes[offset] < 0x80 else {
                throw SyncKernelError(.malformedFrame, "a compact sketch's implied key length is out of range")
            }
            implied = bytes[offset]
            offset += 1
        }
        let written = implies ? width - 1 : width
        let reserved = min(count, max(0, end - offset) / (1 + CodedSymbol.tagBytes + (padded ? written : 1)))
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
            var stored = written
            if !padded {
                let declaredLength = try LEB128.read(bytes, at: &offset, end: end)
                guard declaredLength <= UInt64(CodedSymbol.maxKeySumBytes) else {
                    throw SyncKernelError(.malformedFrame, "a sketch symbol's key sum is too long")
                }
                stored = Int(declaredLength)
            }
            guard end - offset >= stored + CodedSymbol.tagBytes else {
                throw SyncKernelError(.malformedFrame, "a sketch symbol runs past the end")
            }
            var length = stored
            while length > 0, bytes[offset + length - 1] == 0 { length -= 1 }
            guard padded || length == stored else { throw SyncKernelError(.malformedFrame, "a sketch symbol's key sum ends in a zero byte") }
            var keySum: [UInt8] = []
            if implies {
                let first: UInt8 = symbolCount & 1 == 1 ? implied : 0
                let restored = length > 0 || first != 0 ? length + 1 : 0
                try budget.chargeBytes(restored)
                keySum.reserveCapacity(restored)
                if restored > 0 {
                    keySum.append(first)
                    keySum.append(contentsOf: bytes[offset..<offset + length])
                }
            } else {
                try budget.chargeBytes(length)
                keySum = Array(bytes[offset..<offset + length])
            }
            longest = max(longest, keySum.count)
            lengths.append(keySum.count)
            offset += stored
            let tagSum = CodedSymbol.readTagSum(bytes, at: offset)
            offset += CodedSymbol.tagBytes
            symbols.append(CodedSymbol(count: symbolCount, keySum: keySum, tagSum: tagSum))
        }
        guard offset == end else { throw SyncKernelError(.malformedFrame, "bytes after the sketch symbols") }
        guard !padded || longest == width else { throw SyncKernelError(.malformedFrame, "a compact sketch's key-sum width is not its longest") }
        guard padsToOneWidth(count: count, width: longest, lengths: lengths) == padded else {
            throw SyncKernelError(.malformedFrame, "a compact sketch's key sums are not in their shorter form")
        }
        guard (padded ? impliedLength(symbols, width: width) : nil) == (implies ? implied : nil) else {
            throw SyncKernelError(.malformedFrame, "a compact sketch's key length is implied where it does not apply or written where it does")
        }
        return (symbols, residues)
    }
}
