import SyncKernel
import SyncKernelSimulator

/// The benchmark's rows, generated from the seed: row `index` of a stream always comes out the
/// same, so each load regenerates identical rows instead of holding them all in memory.
///
/// Invariants: every row of every stream has its own generator, derived from the seed, the
/// stream and the index through SplitMix64's bijective mixer, so keys are 16 random bytes that
/// never repeat in practice; payloads have the length that makes a row about `rowBytes` long.
struct RowSource {
    /// The independent sequences of rows a run draws from.
    enum Stream: UInt64 {
        /// The rows both replicas load.
        case shared = 1
        /// Rows only replica A inserts.
        case insertedOnA = 2
        /// Rows only replica B inserts.
        case insertedOnB = 3
        /// New payloads for edits of shared rows.
        case edit = 4
        /// Which shared rows get edited.
        case editPositions = 5
    }

    /// The change stamp of the loaded rows (whole seconds).
    static let loadStamp: Int64 = 1_790_000_000
    /// The change stamp of rows inserted or edited after the load.
    static let diffStamp: Int64 = loadStamp + 60

    /// The run's seed.
    let seed: UInt64
    /// The payload bytes per row.
    let payloadLength: Int

    /// Rows of about `rowBytes` encoded bytes under `seed`.
    init(seed: UInt64, rowBytes: Int) {
        self.seed = seed
        payloadLength = BenchNamespace.payloadLength(forRowBytes: rowBytes)
    }

    /// The generator of row `index` of `stream`.
    func generator(_ stream: Stream, _ index: Int) -> SeededGenerator {
        var streamMixer = SeededGenerator(seed: seed ^ (stream.rawValue &* 0xD6E8_FEB8_6659_FD93))
        var rowMixer = SeededGenerator(seed: streamMixer.next() &+ UInt64(index))
        return SeededGenerator(seed: rowMixer.next())
    }

    /// Row `index` of `stream`, stamped `stamp`.
    func row(_ stream: Stream, _ index: Int, stamp: Int64) -> BenchRow {
        var random = generator(stream, index)
        let id = RowSource.bytes(16, from: &random)
        return BenchRow(id: id, payload: RowSource.bytes(payloadLength, from: &random), updatedAt: stamp)
    }

    /// Shared row `index` as an edit leaves it: a new payload and a later stamp.
    func edited(_ index: Int) -> BenchRow {
        var row = row(.shared, index, stamp: RowSource.diffStamp)
        var random = generator(.edit, index)
        row.payload = RowSource.bytes(payloadLength, from: &random)
        return row
    }

    /// `count` bytes, eight per draw.
    static func bytes(_ count: Int, from random: inout SeededGenerator) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            var word = random.next()
            for _ in 0..<min(8, count - out.count) {
                out.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return out
    }
}
