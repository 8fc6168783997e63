import Foundation

/// CPU time of the calling thread (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`) and the process's
/// peak resident set (`getrusage`).
///
/// Invariant: `now` never decreases on one thread; a measurement brackets exactly one call.
package enum ThreadCPUClock {
    /// The thread's CPU time so far, in nanoseconds.
    package static var now: UInt64 {
        var spec = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec) == 0 else { return 0 }
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Runs `body`, adding the CPU time it took to `total` (nanoseconds), whether it returns or throws.
    static func measure<Result, Failure: Error>(_ total: inout UInt64,
                                                _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let started = now
        defer { total += now - started }
        return try body()
    }

    /// The process's peak resident set so far, in bytes.
    static var peakResidentBytes: Int {
        var usage = rusage()
        #if os(Linux)
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        return usage.ru_maxrss * 1024
        #else
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return 0 }
        return usage.ru_maxrss
        #endif
    }
}
