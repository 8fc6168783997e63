import Foundation

/// This process's resident memory as Linux reports it (`/proc/self/status`), with its peak reset
/// between the phases a benchmark measures.
///
/// Invariant: `peakMebibytes` is the largest resident size since the last `resetPeak()` (or the
/// start); reading or resetting never fails loudly (0 where the file cannot be read).
/// `cpuSeconds` only grows.
enum ProcessMemory {
    /// The peak resident size since the last reset, in MiB.
    static var peakMebibytes: Double { Double(statusKilobytes("VmHWM")) / 1_024 }

    /// Returns freed heap memory to the system, then starts a new peak at the resident size now.
    static func resetPeak() {
        if let symbol = dlsym(nil, "malloc_trim") {
            let trim = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
            _ = trim(0)
        }
        guard let clear = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return }
        clear.write(Data("5".utf8))
        try? clear.close()
    }

    /// The CPU time this process used so far (user and system), in seconds: with other programs
    /// sharing the cores, the measure of work that wall time is not.
    static var cpuSeconds: Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// A `kB` line of `/proc/self/status`, or 0.
    private static func statusKilobytes(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}
