import CSodium

/// Where a store draws the random bytes of its device epochs and leases.
///
/// Invariants: `system` draws from the operating system's generator (libsodium's
/// `randombytes_buf`) and is the default of every store; the bytes are fresh randomness, never
/// derived from a key, so an epoch or a lease reveals nothing secret. `seeded(_:)` is a
/// deterministic stream for tests and simulations: each draw is SHA-256 of the seed and a draw
/// counter, so copies of one source share one counter and never repeat a draw, and two sources
/// with different seeds never meet. A caller's own generator can be injected with `init(_:)`.
/// Not `Sendable`: it belongs to the store (or the test) that draws from it.
public struct EntropySource {
    private let draw: (_ count: Int) -> [UInt8]

    /// A source that returns `draw(count)` for each request of `count` bytes; `draw` must return
    /// exactly `count` bytes.
    public init(_ draw: @escaping (_ count: Int) -> [UInt8]) {
        self.draw = draw
    }

    /// The operating system's random bytes.
    public static var system: EntropySource {
        EntropySource { count in
            precondition(SHA256.ready, "libsodium failed to initialise")
            var bytes = [UInt8](repeating: 0, count: count)
            randombytes_buf(&bytes, count)
            return bytes
        }
    }

    /// A deterministic stream derived from `seed` (for tests and simulations only).
    public static func seeded(_ seed: UInt64) -> EntropySource {
        var counter: UInt64 = 0
        let seedBytes = withUnsafeBytes(of: seed.littleEndian) { Array($0) }
        return EntropySource { count in
            var out: [UInt8] = []
            while out.count < count {
                counter += 1
                let position = withUnsafeBytes(of: counter.littleEndian) { Array($0) }
                out += SHA256.hash(domain: Array("synckernel.seeded-entropy".utf8), seedBytes, position)
            }
            return Array(out.prefix(count))
        }
    }

    /// `count` bytes from the source.
    package func bytes(_ count: Int) -> [UInt8] {
        draw(count)
    }
}
