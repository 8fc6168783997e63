import Foundation
import Synchronization

/// A server program a test started, watched so that it never outlives the test process.
///
/// The program runs under a small `/bin/sh` watchdog whose standard input is a pipe this process
/// holds open: when this process ends for any reason (a failed test, a crash, SIGKILL), the pipe
/// closes and the watchdog kills the server. Its standard output and error go to a `LogWatch`.
///
/// Invariants: `stop()` ends the server (SIGTERM, then SIGKILL after `stopGraceSeconds`) and
/// returns only once the watchdog exited, so nothing it started is left; it is idempotent; a
/// server that exits by itself ends its log, which ends every wait on it.
package final class TestServerProcess: Sendable {
    /// Seconds between SIGTERM and SIGKILL in `stop()`.
    package static let stopGraceSeconds = 5
    /// The line the watchdog prints first: the marker and the server's process id.
    private static let pidMarker = "synckernel-test-server-pid "
    /// Runs `"$@"` in the background, reports its pid, kills it when standard input closes, and
    /// exits with its status.
    private static let watchdog = """
        exec 3<&0
        "$@" </dev/null &
        server=$!
        echo "\(pidMarker)$server"
        ( read -r _ <&3; kill -KILL "$server" 2>/dev/null ) &
        guard=$!
        wait "$server"
        status=$?
        kill "$guard" 2>/dev/null
        wait "$guard" 2>/dev/null
        exit "$status"
        """

    /// The program's name, for messages.
    package let program: String
    /// The program's output.
    package let log: LogWatch
    /// The server's process id.
    package let pid: Int32
    private let keepAlive: Int32
    private let closed = Mutex(false)
    private let exit: ExitWatch

    /// Starts `executable` with `arguments` under the watchdog and waits until it reported its pid.
    ///
    /// Spawned directly (`posix_spawn`) with an empty signal mask and default signal actions:
    /// a test process blocks most signals on its threads, and a child inheriting that mask could
    /// neither be stopped with SIGTERM nor reap its own children. Both pipes are close-on-exec
    /// on this side, so no other child inherits the watchdog's lifeline.
    package static func launch(_ executable: String, _ arguments: [String]) async throws(TestServerError) -> TestServerProcess {
        let program = URL(fileURLWithPath: executable).lastPathComponent
        guard let input = ProcessSpawn.pipe() else { throw .launchFailed(program: program, reason: "pipe: errno \(errno)") }
        guard let output = ProcessSpawn.pipe() else {
            close(input.read)
            close(input.write)
            throw .launchFailed(program: program, reason: "pipe: errno \(errno)")
        }
        let spawned = ProcessSpawn.spawn(["/bin/sh", "-c", watchdog, "sh", executable] + arguments,
                                         descriptors: [(input.read, 0), (output.write, 1), (output.write, 2)])
        close(input.read)
        close(output.write)
        let shell: pid_t
        switch spawned {
        case .success(let pid):
            shell = pid
        case .failure(let failure):
            close(input.write)
            close(output.read)
            throw .launchFailed(program: program, reason: "posix_spawn: errno \(failure.code)")
        }
        let log = LogWatch()
        let exit = ExitWatch()
        ProcessSpawn.drain(output.read, into: { log.append($0) }, end: { log.end() })
        ProcessSpawn.reap(shell) { _ in exit.markExited() }
        let keepAlive = input.write
        let marker = await log.firstLine(matching: { $0.hasPrefix(pidMarker) }, timeout: .seconds(10))
        guard let marker, let pid = Int32(marker.dropFirst(pidMarker.count)) else {
            close(keepAlive)
            _ = await exit.wait(timeout: .seconds(stopGraceSeconds))
            throw .launchFailed(program: program, reason: "the watchdog did not report the server")
        }
        return TestServerProcess(program: program, log: log, pid: pid, keepAlive: keepAlive, exit: exit)
    }

    private init(program: String, log: LogWatch, pid: Int32, keepAlive: Int32, exit: ExitWatch) {
        self.program = program
        self.log = log
        self.pid = pid
        self.keepAlive = keepAlive
        self.exit = exit
    }

    deinit {
        // A server nobody stopped: closing the pipe makes the watchdog kill it.
        closeLifeline()
    }

    /// Whether the server (and so its watchdog) has exited.
    package var hasExited: Bool { exit.hasExited }

    /// Waits up to `timeout` for the server to exit by itself; whether it did.
    package func waitForExit(timeout: Duration) async -> Bool {
        await exit.wait(timeout: timeout)
    }

    /// Stops the server: SIGTERM, SIGKILL if it is still running after `stopGraceSeconds`, then
    /// waits for the watchdog to exit. Idempotent.
    package func stop() async {
        if !exit.hasExited {
            kill(pid, SIGTERM)
            if !(await exit.wait(timeout: .seconds(Self.stopGraceSeconds))) {
                kill(pid, SIGKILL)
                _ = await exit.wait(timeout: .seconds(Self.stopGraceSeconds))
            }
        }
        closeLifeline()
    }

    /// Closes this side of the watchdog's pipe, once.
    private func closeLifeline() {
        closed.withLock { closed in
            guard !closed else { return }
            closed = true
            close(keepAlive)
        }
    }

    /// Closes the lifeline as the end of this process would, without signalling the server: the
    /// watchdog kills it. For the tests of the watchdog itself.
    package func abandon() {
        closeLifeline()
    }

    /// Whether the process with `pid` exists (a zero signal reaches it).
    package static func isAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0
    }
}
