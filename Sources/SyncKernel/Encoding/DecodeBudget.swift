/// The heap memory one decode of untrusted bytes may keep: `bytesPerInputByte` bytes for every
/// input byte plus `slack`, charged as the decoder allocates.
///
/// Invariants: a decoder charges every allocation its result keeps before making it, at the
/// size glibc's allocator gives it (`heapBytes`: the request, an 8-byte chunk header, rounded up
/// to 16, at least 32), so `charged` is never below what the decoded value holds on the heap,
/// and a charge that would take `charged` past `limit` throws `limitExceeded` instead, so no
/// decode keeps more than `limit`. Transient allocations (a map key read to compare it, a
/// scratch copy) are freed before the next item is read and stay within one item's size.
package struct DecodeBudget: Sendable {
    /// The bytes a decode may keep per input byte.
    package static let bytesPerInputByte = 4
    /// The bytes a decode may keep whatever the input's size: what a tiny frame (a heartbeat,
    /// a digest) needs, and the headroom that lets the largest legitimate frames of small rows
    /// decode (`docs/hardening.md`, "Decoding memory").
    package static let slack = 1 << 20

    /// The most this decode may keep.
    package let limit: Int
    /// What this decode has charged so far.
    package private(set) var charged = 0

    /// The budget of one decode of `inputBytes` bytes.
    package init(inputBytes: Int) {
        limit = DecodeBudget.bytesPerInputByte * max(0, inputBytes) + DecodeBudget.slack
    }

    /// Charges `bytes`, or throws `limitExceeded` when that would pass the limit.
    package mutating func charge(_ bytes: Int) throws(SyncKernelError) {
        guard bytes >= 0, bytes <= limit - charged else {
            throw SyncKernelError(.limitExceeded, "the decoded form outgrows its memory budget")
        }
        charged += bytes
    }

    /// Charges the storage of an array of `count` elements of `Element` (none when empty).
    package mutating func chargeArray<Element>(of element: Element.Type, count: Int) throws(SyncKernelError) {
        try charge(DecodeBudget.arrayBytes(stride: MemoryLayout<Element>.stride, count: count))
    }

    /// Charges a byte string of `count` bytes held as `[UInt8]`.
    package mutating func chargeBytes(_ count: Int) throws(SyncKernelError) {
        try charge(DecodeBudget.arrayBytes(stride: 1, count: count))
    }

    /// Charges a `String` of `utf8Count` UTF-8 bytes: none up to 15 (held inline), else its
    /// native storage (a 32-byte header, the bytes and a terminating zero).
    package mutating func chargeText(utf8Count: Int) throws(SyncKernelError) {
        try charge(utf8Count <= 15 ? 0 : DecodeBudget.heapBytes(32 + utf8Count + 1))
    }

    /// Charges a dictionary created with `Dictionary(minimumCapacity: count)`: a power of two
    /// of buckets at most three quarters full, each holding a key and a value, an occupancy bitmap
    /// and an 80-byte header.
    package mutating func chargeDictionary<Key, Value>(of key: Key.Type, _ value: Value.Type, count: Int) throws(SyncKernelError) {
        try charge(DecodeBudget.dictionaryBytes(keyStride: MemoryLayout<Key>.stride, valueStride: MemoryLayout<Value>.stride,
                                                count: count))
    }

    /// What `Dictionary(minimumCapacity: count)` takes for keys and values of the given strides.
    package static func dictionaryBytes(keyStride: Int, valueStride: Int, count: Int) -> Int {
        guard count > 0 else { return 0 }
        guard count <= (1 << 40) else { return Int.max }
        var buckets = 1
        while buckets * 3 < count * 4 || buckets <= count { buckets <<= 1 }
        return heapBytes(80 + 8 * max(1, buckets / 64) + buckets * (keyStride + valueStride))
    }

    /// Charges one boxed payload of an indirect enum (a `CBORValue` case) of `payload` bytes.
    package mutating func chargeBox(payload: Int) throws(SyncKernelError) {
        try charge(DecodeBudget.heapBytes(16 + payload))
    }

    /// What glibc's allocator takes for a request of `size` bytes.
    package static func heapBytes(_ size: Int) -> Int {
        max(32, (size + 8 + 15) & ~15)
    }

    /// What an array's storage of `count` elements of `stride` bytes takes (a 32-byte header).
    package static func arrayBytes(stride: Int, count: Int) -> Int {
        guard count > 0 else { return 0 }
        guard count <= (Int.max - 64) / max(1, stride) else { return Int.max }
        return heapBytes(32 + stride * count)
    }
}
