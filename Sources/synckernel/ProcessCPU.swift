import Foundation

/// Another process's CPU time as Linux reports it (`/proc/PID/stat`).
///
/// Invariant: `seconds(of:)` is the process's user plus system time, in seconds at the clock
/// tick's resolution; 0 when the file cannot be read or parsed (a process that ended), never a trap.
enum ProcessCPU {
    /// The CPU seconds process `pid` has used so far.
    static func seconds(of pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15 of the whole line.
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
