import SyncKernel

/// The benchmark's namespace: causal rows of about `--row-bytes` bytes keyed by 16 random bytes,
/// declared with the same `RowSchema` API every namespace uses.
///
/// Invariant: a causal namespace like the notebook, so shipped rows carry version vectors and
/// the bench pays what a real causal namespace pays on the wire.
public enum BenchNamespace: SyncNamespace {
    /// The namespace's stable name.
    public static let name = "bench"

    /// Every field hashed: the key, the payload, the stamp.
    public static let schema = RowSchema<BenchRow>(blank: BenchRow(id: [], payload: [], updatedAt: 0), key: \.id, [
        .hashed("id", \.id, .bytes(count: 16)),
        .hashed("payload", \.payload, .bytes()),
        .hashed("updatedAt", \.updatedAt, .int64),
    ])

    /// Causal, stamped by `updatedAt`.
    public static let mergeRule = MergeRule<BenchRow>.causal(changeStamp: \.updatedAt)

    /// The payload length that makes an encoded row `rowBytes` long (or as close as the fixed
    /// fields allow: never negative).
    public static func payloadLength(forRowBytes rowBytes: Int) -> Int {
        let blank = BenchRow(id: [UInt8](repeating: 0, count: 16), payload: [], updatedAt: 1)
        var length = max(0, rowBytes - rowEncoding(of: blank).count)
        for _ in 0..<3 {
            var sized = blank
            sized.payload = [UInt8](repeating: 0, count: length)
            let excess = rowEncoding(of: sized).count - rowBytes
            guard excess > 0, length > 0 else { break }
            length = max(0, length - excess)
        }
        return length
    }
}
