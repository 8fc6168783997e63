import Foundation
import Synchronization

/// A program a test runs (a `synckernel` command, a device process), with its standard input,
/// output and error each on a pipe of its own, watched so that it never outlives the test process.
///
/// Like `TestServerProcess`, the program runs under a `/bin/sh` watchdog holding a lifeline pipe
/// whose other end only this process has: when this process ends for any reason (a failed test,
/// a crash, SIGKILL), the lifeline closes and the watchdog kills the program with SIGKILL. The
/// watchdog reports the program's process id on a pipe of its own, so signals reach the program
/// itself, and exits with the program's status (128 + the signal when a signal ended it).
///
/// Invariants: `output` and `errors` get every line the program writes (kept up to
/// `keptLines`), and `outputBytes`/`errorBytes` the raw bytes (up to `maxCapturedBytes`); the end
/// of both comes after the program exited; `stop()` and `kill()` return only once the watchdog
/// exited, so nothing is left running; `exitStatus` is nil until then.
package final class WatchedProgram: Sendable {
    /// Raw bytes kept per stream.
    package static let maxCapturedBytes = 64 << 20
    /// Runs `"$@"` with fd 3 as its standard input, reports its pid on fd 4, kills it when the
    /// lifeline (fd 0) closes, and exits with its status.
    private static let watchdog = """
        exec 5<&0
        "$@" <&3 3<&- 4>&- 5<&- &
        child=$!
        echo "$child" >&4
        exec 4>&- 3<&-
        ( read -r _ <&5; kill -KILL "$child" 2>/dev/null ) >/dev/null 2>&1 &
        guard=$!
        exec 5<&- 0</dev/null
        wait "$child"
        status=$?
        kill "$guard" 2>/dev/null
        wait "$guard" 2>/dev/null
        exit "$status"
        """

    /// The program's name, for messages.
    package let program: String
    /// The program's process id.
    package let pid: Int32
    /// Standard output, line by line.
    package let output: LogWatch
    /// Standard error, line by line.
    package let errors: LogWatch
    private let captured: Capture
    private let input: Mutex<Int32?>
    private let lifeline: Mutex<Int32?>
    private let exit: ExitWatch

    /// Starts `executable` with `arguments` under the watchdog; returns once its pid is known.
    package static func launch(_ executable: String, _ arguments: [String],
                               keptLines: Int = LogWatch.keptLines) async throws(TestServerError) -> WatchedProgram {
        let program = URL(fileURLWithPath: executable).lastPathComponent
        var pipes: [(read: Int32, write: Int32)] = []
        for _ in 0..<5 {
            guard let pipe = ProcessSpawn.pipe() else {
                for pipe in pipes { close(pipe.read); close(pipe.write) }
                throw .launchFailed(program: program, reason: "pipe: errno \(errno)")
            }
            pipes.append(pipe)
        }
        let (life, stdin, stdout, stderr, report) = (pipes[0], pipes[1], pipes[2], pipes[3], pipes[4])
        let spawned = ProcessSpawn.spawn(["/bin/sh", "-c", watchdog, "sh", executable] + arguments,
                                         descriptors: [(life.read, 0), (stdout.write, 1), (stderr.write, 2), (stdin.read, 3),
                                                       (report.write, 4)])
        for end in [life.read, stdin.read, stdout.write, stderr.write, report.write] { close(end) }
        let shell: pid_t
        switch spawned {
        case .success(let pid):
            shell = pid
        case .failure(let failure):
            for end in [life.write, stdin.write, stdout.read, stderr.read, report.read] { close(end) }
            throw .launchFailed(program: program, reason: "posix_spawn: errno \(failure.code)")
        }
        let reported = LogWatch()
        ProcessSpawn.drain(report.read, into: { reported.append($0) }, end: { reported.end() })
        let output = LogWatch(keptLines: keptLines)
        let errors = LogWatch(keptLines: keptLines)
        let captured = Capture()
        ProcessSpawn.drain(stdout.read, into: { bytes in
            output.append(bytes)
            captured.bytes.withLock { if $0.output.count < maxCapturedBytes { $0.output += bytes } }
        }, end: { output.end() })
        ProcessSpawn.drain(stderr.read, into: { bytes in
            errors.append(bytes)
            captured.bytes.withLock { if $0.errors.count < maxCapturedBytes { $0.errors += bytes } }
        }, end: { errors.end() })
        let exit = ExitWatch()
        ProcessSpawn.reap(shell) { status in
            // The watchdog exits normally with the program's status (128 + signal for a signal).
            exit.markExited(status: (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f))
        }
        guard let line = await reported.firstLine(matching: { _ in true }, timeout: .seconds(10)), let pid = Int32(line) else {
            close(life.write)
            close(stdin.write)
            _ = await exit.wait(timeout: .seconds(10))
            throw .launchFailed(program: program, reason: "the watchdog did not report the program")
        }
        return WatchedProgram(program: program, pid: pid, output: output, errors: errors, captured: captured, input: stdin.write,
                              lifeline: life.write, exit: exit)
    }

    private init(program: String, pid: Int32, output: LogWatch, errors: LogWatch,
                 captured: Capture, input: Int32, lifeline: Int32, exit: ExitWatch) {
        self.program = program
        self.pid = pid
        self.output = output
        self.errors = errors
        self.captured = captured
        self.input = Mutex(input)
        self.lifeline = Mutex(lifeline)
        self.exit = exit
    }

    deinit {
        // A program nobody stopped: closing the lifeline makes the watchdog kill it.
        closeInput()
        closeLifeline()
    }

    /// Everything the program wrote to standard output so far.
    package var outputBytes: [UInt8] { captured.bytes.withLock { $0.output } }
    /// Everything the program wrote to standard error so far.
    package var errorBytes: [UInt8] { captured.bytes.withLock { $0.errors } }
    /// Whether the program (and its watchdog) exited.
    package var hasExited: Bool { exit.hasExited }
    /// The program's exit status once it exited (128 + the signal when a signal ended it).
    package var exitStatus: Int32? { exit.status }

    /// Writes `text` to the program's standard input; false once the input is closed or the
    /// program stopped reading.
    @discardableResult
    package func send(_ text: String) -> Bool {
        input.withLock { descriptor in
            guard let descriptor else { return false }
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return false }
                bytes = bytes.dropFirst(written)
            }
            return true
        }
    }

    /// Closes the program's standard input (it reads its end). Idempotent.
    package func closeInput() {
        input.withLock { descriptor in
            if let open = descriptor { close(open) }
            descriptor = nil
        }
    }

    /// Sends `signal` to the program (not to its watchdog).
    package func signal(_ signal: Int32) {
        if !exit.hasExited { Glibc.kill(pid, signal) }
    }

    /// Waits up to `timeout` for the program to exit; its status, or nil if it still runs.
    package func waitForExit(timeout: Duration) async -> Int32? {
        await exit.wait(timeout: timeout) ? exit.status : nil
    }

    /// Stops the program: SIGTERM, SIGKILL if it still runs after `TestServerProcess.stopGraceSeconds`,
    /// then waits for the watchdog. Idempotent.
    package func stop() async {
        if !exit.hasExited {
            Glibc.kill(pid, SIGTERM)
            if !(await exit.wait(timeout: .seconds(TestServerProcess.stopGraceSeconds))) { await self.kill() }
        }
        closeInput()
        closeLifeline()
    }

    /// Kills the program with SIGKILL and waits for the watchdog.
    package func kill() async {
        if !exit.hasExited {
            Glibc.kill(pid, SIGKILL)
            _ = await exit.wait(timeout: .seconds(TestServerProcess.stopGraceSeconds))
        }
        closeInput()
        closeLifeline()
    }

    /// The raw bytes of both outputs.
    private final class Capture: Sendable {
        let bytes = Mutex<(output: [UInt8], errors: [UInt8])>(([], []))
    }

    private func closeLifeline() {
        lifeline.withLock { descriptor in
            if let open = descriptor { close(open) }
            descriptor = nil
        }
    }
}
