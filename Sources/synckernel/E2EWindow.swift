/// The measured window of one `synckernel bench-e2e` point: the server's totals, each device's
/// CPU, accepted envelopes and rounds at its start, and their differences at its end.
///
/// Invariants: a device restarted for the window (`fresh`) counts from zero (its whole new
/// process); every other figure is the end reading less the start reading of the same counter.
struct E2EWindow {
    /// The figures the window measured.
    struct Figures {
        /// Payload bytes published into the server.
        let bytes: Int
        /// Messages published into the server.
        let messages: Int
        /// CPU milliseconds of a and b.
        let cpu: (a: Double, b: Double)
        /// Envelopes b accepted (from a) and a accepted (from b).
        let frames: (aToB: Int, bToA: Int)
        /// Rounds both started.
        let rounds: Int
        /// Frames a and b sent that another part of the same answer or push followed.
        let ahead: (a: Int, b: Int)
    }

    /// When the window opened.
    let opened: ContinuousClock.Instant
    /// Seconds the writes took.
    var writeSeconds = 0.0
    /// The server read at both ends.
    private let relay: E2ERelay
    /// Device a.
    private let a: E2EDevice
    /// Device b.
    private let b: E2EDevice
    /// The server's totals at the start.
    private let counters: E2ERelay.Counters
    /// Each device's CPU seconds at the start (0 for a fresh one).
    private let cpu: (a: Double, b: Double)
    /// Each device's accepted envelopes at the start (0 for a fresh one).
    private let accepted: (a: Int, b: Int)
    /// Rounds both had started at the start.
    private let rounds: Int
    /// Each device's parts sent ahead at the start (0 for a fresh one).
    private let ahead: (a: Int, b: Int)

    /// Opens a window over `a` and `b` now, from `counters` (read now when nil); `fresh` names a
    /// device just started, which counts from zero.
    static func open(relay: E2ERelay, _ a: E2EDevice, _ b: E2EDevice, counters: E2ERelay.Counters? = nil,
                     fresh: String? = nil, opened: ContinuousClock.Instant = .now) async throws -> E2EWindow {
        let statusA = fresh == "a" ? nil : try await a.status()
        let statusB = fresh == "b" ? nil : try await b.status()
        let start: E2ERelay.Counters
        if let counters { start = counters } else { start = try await relay.counters() }
        return E2EWindow(opened: opened, relay: relay, a: a, b: b, counters: start,
                         cpu: (fresh == "a" ? 0 : a.cpuSeconds, fresh == "b" ? 0 : b.cpuSeconds),
                         accepted: (statusA?.accepted ?? 0, statusB?.accepted ?? 0),
                         rounds: (statusA?.roundsStarted ?? 0) + (statusB?.roundsStarted ?? 0),
                         ahead: (statusA?.partsAhead ?? 0, statusB?.partsAhead ?? 0))
    }

    /// Reads the end of the window.
    func close() async throws -> Figures {
        let end = try await relay.counters()
        let cpuA = a.cpuSeconds
        let cpuB = b.cpuSeconds
        let statusA = try await a.status()
        let statusB = try await b.status()
        return Figures(bytes: end.inBytes - counters.inBytes, messages: end.inMessages - counters.inMessages,
                       cpu: ((cpuA - cpu.a) * 1e3, (cpuB - cpu.b) * 1e3),
                       frames: (statusB.accepted - accepted.b, statusA.accepted - accepted.a),
                       rounds: statusA.roundsStarted + statusB.roundsStarted - rounds,
                       ahead: (statusA.partsAhead - ahead.a, statusB.partsAhead - ahead.b))
    }
}
