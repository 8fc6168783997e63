import SyncKernelSimulator

/// The seeded shape of one soak fleet: how many devices, how the relay mistreats frames, how far
/// each device's wall clock is off, how many rows each namespace starts with and how long writes
/// and faults go on.
///
/// Invariant: drawn first from the fleet's own generator (`init(seed:random:)`), so a seed names
/// one plan on every run and platform, and the run that follows continues the same sequence.
struct SoakPlan: Sendable, Hashable {
    /// The largest wall-clock offset of a device, either way, in seconds (24 hours).
    static let maxSkewSeconds: Int64 = 86_400
    /// Virtual time the fleet gets to converge once writes stop and every fault is repaired.
    static let settleMillis: Int64 = 20 * 60 * 1000

    /// The fleet's seed.
    let seed: UInt64
    /// Number of devices (3 to 7).
    let devices: Int
    /// Latency, loss, duplication and reordering of the relay.
    let conditions: RelayConditions
    /// Each device's wall-clock offset from virtual time, in seconds, within ±`maxSkewSeconds`.
    let skewSeconds: [Int64]
    /// Rows of each namespace device 0 writes before its store is copied to the others (0 to 3).
    let rowsPerNamespace: Int
    /// How long writes and faults go on, in virtual milliseconds (20 to 60 seconds).
    let activeMillis: Int64

    /// Draws the plan of fleet `seed` from `random`.
    init(seed: UInt64, random: inout SeededGenerator) {
        self.seed = seed
        devices = 3 + Int(random.next() % 5)
        let latency = 1 + Int64(random.next() % 200)
        let loss = random.chance(0.2) ? 0 : Double(1 + random.next() % 30) / 100
        let duplication = Double(random.next() % 21) / 100
        let jitter = Int64(random.next() % 301)
        conditions = RelayConditions(latencyMillis: latency, lossRate: loss, duplicationRate: duplication,
                                     reorderJitterMillis: jitter)
        skewSeconds = (0..<devices).map { _ in
            Int64(random.next() % UInt64(2 * SoakPlan.maxSkewSeconds + 1)) - SoakPlan.maxSkewSeconds
        }
        rowsPerNamespace = Int(random.next() % 4)
        activeMillis = 20_000 + Int64(random.next() % 40_001)
    }

    /// One line naming the plan, for reports.
    var summary: String {
        let loss = Int((conditions.lossRate * 100).rounded())
        let duplication = Int((conditions.duplicationRate * 100).rounded())
        return "\(devices) devices, \(conditions.latencyMillis) ms latency, \(loss)% loss, \(duplication)% duplication, "
            + "\(conditions.reorderJitterMillis) ms jitter, \(rowsPerNamespace) rows per namespace, "
            + "\(activeMillis / 1000) s of writes, clock offsets \(skewSeconds.map { "\($0)s" }.joined(separator: " "))"
    }
}
