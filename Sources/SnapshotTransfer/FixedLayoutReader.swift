import SyncKernel

/// Reads a hand-written fixed layout from untrusted bytes: big-endian integers and byte fields,
/// each read checked against what is left.
///
/// Invariant: never reads beyond `bytes`; a read past the end throws `truncatedInput`, and
/// `finish()` throws `trailingBytes` when anything is left unread, so a layout is accepted only
/// when it is exactly as long as its fields.
struct FixedLayoutReader {
    private let bytes: [UInt8]
    private var position = 0

    /// A reader at the start of `bytes`.
    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The next `count` bytes.
    mutating func read(_ count: Int) throws -> [UInt8] {
        guard count >= 0, bytes.count - position >= count else { throw SyncKernelError(.truncatedInput, "a transfer field") }
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    /// The next byte.
    mutating func byte() throws -> UInt8 {
        try read(1)[0]
    }

    /// The next big-endian unsigned integer of `width` bytes (at most 8).
    mutating func unsigned(width: Int) throws -> UInt64 {
        try read(width).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// Throws `trailingBytes` unless every byte was read.
    func finish() throws {
        guard position == bytes.count else { throw SyncKernelError(.trailingBytes, "after a transfer message") }
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` big-endian in `width` bytes (its low bytes), as every hand-written layout
    /// of the transfer (messages, records, blob headers, manifests) writes its integers.
    package mutating func appendBigEndian(_ value: UInt64, width: Int) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
