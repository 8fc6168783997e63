/// Seeded payload bytes (SplitMix64), so every run sends the same bytes.
enum Payloads {
    /// `count` bytes drawn from `seed`.
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        var bytes = [UInt8]()
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            withUnsafeBytes(of: z) { bytes += $0 }
        }
        return Array(bytes.prefix(count))
    }
}
