/// Unsigned LEB128 varints, the integer form of the sketch's wire and persisted shapes.
///
/// Invariant: every value has exactly one accepted encoding, the shortest (seven bits a byte,
/// low group first, the high bit set on every byte but the last); a reader refuses longer forms,
/// values wider than 64 bits and input that ends inside a varint, and never reads past its end.
package enum LEB128 {
    /// The most bytes a 64-bit value takes.
    package static let maxBytes = 10

    /// Appends the shortest encoding of `value` to `bytes`.
    ///
    /// Invariant: the appended bytes are the only ones `read` accepts for `value`.
    package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: rest))
    }

    /// How many bytes the shortest encoding of `value` takes.
    ///
    /// Invariant: equals the number of bytes `append` writes for `value`, between 1 and `maxBytes`.
    package static func byteCount(_ value: UInt64) -> Int {
        var count = 1
        var rest = value >> 7
        while rest != 0 {
            count += 1
            rest >>= 7
        }
        return count
    }

    /// Reads one varint at `offset` in `bytes` and moves `offset` past it.
    ///
    /// Invariant: on success `offset` advanced by the varint's length; on failure it is left where
    /// it was and the error is `.malformedFrame`.
    package static func read(_ bytes: [UInt8], at offset: inout Int) throws(SyncKernelError) -> UInt64 {
        try read(bytes, at: &offset, end: bytes.count)
    }

    /// Reads one varint at `offset`, looking no further than `end`, and moves `offset` past it.
    ///
    /// Invariant: only bytes in `offset..<min(end, bytes.count)` are read; refusals as `read(_:at:)`.
    package static func read(_ bytes: [UInt8], at offset: inout Int, end: Int) throws(SyncKernelError) -> UInt64 {
        let stop = min(end, bytes.count)
        var position = offset
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position >= 0, position < stop else {
                throw SyncKernelError(.malformedFrame, "varint runs past the end")
            }
            let byte = bytes[position]
            position += 1
            let group = UInt64(byte & 0x7f)
            if shift == 63, group > 1 {
                throw SyncKernelError(.malformedFrame, "varint wider than 64 bits")
            }
            value |= group << shift
            if byte & 0x80 == 0 {
                if byte == 0, shift > 0 {
                    throw SyncKernelError(.malformedFrame, "varint not in its shortest form")
                }
                offset = position
                return value
            }
            if shift == 63 {
                throw SyncKernelError(.malformedFrame, "varint wider than 64 bits")
            }
            shift += 7
        }
    }
}
