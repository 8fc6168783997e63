import SyncRelay
import SyncKernel

/// One NATS message carrying a payload or a piece of one: a 17-byte header (a format byte, a
/// random 64-bit message id, the chunk's index and the chunk count, big-endian) and the data; or,
/// for a payload that fits one message and a recipient that reads it, the short form: the byte
/// `wholeFormat` and the payload, 16 bytes less.
///
/// Invariants: `split` yields between 1 and `maxChunks` chunks, each at most `chunkBytes` long,
/// every one but the last full, whose data joined in index order is the payload, or with
/// `short` one short-form message when the payload fits; `parse` reads back exactly the headers
/// `split` writes and refuses any other (a short message, another format, a zero count, an index
/// at or past the count). A build before the short form refuses it as another format, so a
/// sender uses it only toward a recipient that announced it reads it
/// (`NatsRelayConnection.shortFormCapability`). The header reveals to the relay the message size
/// and chunking only, which its length already shows; the message id is random per payload and
/// names no device.
package struct RelayChunk: Sendable, Hashable {
    /// The format byte of this layout.
    package static let format: UInt8 = 1
    /// The format byte of the short form: a whole payload in one message, no other header.
    package static let wholeFormat: UInt8 = 2
    /// Header length: format, message id, index, count.
    package static let headerBytes = 1 + 8 + 4 + 4
    /// Header length of the short form: its format byte.
    package static let wholeHeaderBytes = 1

    /// The payload this chunk belongs to.
    package let messageID: UInt64
    /// Position of the chunk in the payload, from zero.
    package let index: UInt32
    /// Number of chunks of the payload.
    package let count: UInt32
    /// The chunk's piece of the payload.
    package let data: ArraySlice<UInt8>

    /// Cuts `payload` into chunks of at most `chunkBytes` (header included), or throws
    /// `relayPayloadTooLarge` when that takes more than `maxChunks`; with `short`, a payload that
    /// fits one message of `chunkBytes` goes as the short form.
    package static func split(_ payload: [UInt8], messageID: UInt64, chunkBytes: Int,
                              maxChunks: Int, short: Bool = false) throws(RelayError) -> [[UInt8]] {
        if short, payload.count + wholeHeaderBytes <= chunkBytes { return [[wholeFormat] + payload] }
        let dataBytes = chunkBytes - headerBytes
        guard dataBytes > 0 else { throw RelayError(.invalidRelayConfiguration, "a chunk leaves no room for data") }
        let count = max(1, (payload.count + dataBytes - 1) / dataBytes)
        guard count <= maxChunks, count <= Int(UInt32.max) else {
            throw RelayError(.relayPayloadTooLarge, "more chunks than the relay allows")
        }
        return (0..<count).map { index in
            let start = index * dataBytes
            let piece = payload[start..<min(payload.count, start + dataBytes)]
            var chunk = [UInt8]()
            chunk.reserveCapacity(headerBytes + piece.count)
            chunk.append(format)
            appendBigEndian(messageID, to: &chunk)
            appendBigEndian(UInt32(index), to: &chunk)
            appendBigEndian(UInt32(count), to: &chunk)
            chunk += piece
            return chunk
        }
    }

    /// Reads a received NATS message, in either form (a short-form message reads as the one
    /// chunk of a payload, message id 0); nil when it is neither.
    package init?(parsing message: [UInt8]) {
        if message.first == Self.wholeFormat {
            messageID = 0
            index = 0
            count = 1
            data = message[Self.wholeHeaderBytes...]
            return
        }
        guard message.count >= Self.headerBytes, message[0] == Self.format else { return nil }
        let id = Self.bigEndian(message[1..<9], as: UInt64.self)
        let index = Self.bigEndian(message[9..<13], as: UInt32.self)
        let count = Self.bigEndian(message[13..<17], as: UInt32.self)
        guard count > 0, index < count else { return nil }
        messageID = id
        self.index = index
        self.count = count
        data = message[Self.headerBytes...]
    }

    private static func appendBigEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes += $0 }
    }

    private static func bigEndian<T: FixedWidthInteger>(_ bytes: ArraySlice<UInt8>, as type: T.Type) -> T {
        bytes.reduce(T.zero) { $0 << 8 | T($1) }
    }
}
