import Foundation
import TestServers

/// One `synckernel device` process of `synckernel bench-e2e` (this binary, `--events json`, the
/// device's default loop timings as a user runs it: a 400 ms debounce, retries from 2 s to 30 s),
/// driven through its standard input and read through its JSON lines and its CPU time.
///
/// Invariants: the process runs under the test-server watchdog, so it never outlives the bench;
/// every wait has a deadline and throws `E2EError` at it, never hangs; an answer is only ever read
/// from lines written after its command was sent; `cpuSeconds` is the process's user and system
/// time over all its threads (`/proc/PID/stat` utime + stime), 0 once it cannot be read.
final class E2EDevice: Sendable {
    /// What one `status` answer says.
    struct Status {
        /// Each namespace's root (hex), by name.
        let roots: [String: String]
        /// Notebook rows (items) the store holds.
        let notebookRows: Int
        /// Open notebook conflicts (keys with concurrent versions kept), 0 when not shown.
        let notebookConflicts: Int
        /// Envelopes the gate accepted so far.
        let accepted: Int
        /// Rounds the device started so far.
        let roundsStarted: Int
        /// Frames it sent so far that another part of the same answer or push followed.
        let partsAhead: Int
        /// Whether every sibling is recorded in sync (false with none).
        let siblingsInSync: Bool
    }

    /// The device's name in the account.
    let name: String
    /// The process.
    let program: WatchedProgram

    /// Wraps a launched process.
    private init(name: String, program: WatchedProgram) {
        self.name = name
        self.program = program
    }

    /// Starts device `name` of `account` on the store `db` over `relay` and waits for `ready`.
    static func launch(_ name: String, account: String, db: String, relay: String) async throws -> E2EDevice {
        let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        let program = try await WatchedProgram.launch(executable, [
            "device", "--account", account, "--name", name, "--db", db, "--relay", relay,
            "--events", "json",
        ], keptLines: 2_000_000)
        let device = E2EDevice(name: name, program: program)
        guard await program.output.wait(timeout: .seconds(120), until: { lines in
            lines.contains { Self.object($0)?["event"] as? String == "ready" }
        }) else {
            await program.stop()
            throw E2EError("device \(name) did not start: \(program.errors.tail(10))")
        }
        return device
    }

    /// The process's CPU seconds so far.
    var cpuSeconds: Double { ProcessCPU.seconds(of: program.pid) }

    /// Sends `line` and returns the first JSON answer after it whose `event` is `event`; throws
    /// on an `error` answer or when none came within `timeout`.
    func command(_ line: String, answer event: String, timeout: Duration) async throws -> [String: Any] {
        let before = program.output.lines.count
        guard program.send(line + "\n") else { throw E2EError("device \(name): its input is closed") }
        let found = await program.output.wait(timeout: timeout) { lines in
            lines.dropFirst(before).contains { line in
                guard let name = Self.object(line)?["event"] as? String else { return false }
                return name == event || name == "error"
            }
        }
        let answer = program.output.lines.dropFirst(before).compactMap(Self.object).first { object in
            object["event"] as? String == event || object["event"] as? String == "error"
        }
        guard found, let answer else { throw E2EError("device \(name): no answer to \(line) within \(timeout)") }
        guard answer["event"] as? String == event else { throw E2EError("device \(name): \(line) answered \(answer)") }
        return answer
    }

    /// Asks for the status once and returns the answer.
    func status() async throws -> Status {
        let before = program.output.lines.count
        guard program.send("status\n") else { throw E2EError("device \(name): its input is closed") }
        let isAnswer: @Sendable (String) -> Bool = { line in
            guard let object = Self.object(line) else { return false }
            return object["namespaces"] != nil && object["event"] == nil
        }
        guard await program.output.wait(timeout: .seconds(60), until: { $0.dropFirst(before).contains(where: isAnswer) }),
              let line = program.output.lines.dropFirst(before).first(where: isAnswer), let object = Self.object(line) else {
            throw E2EError("device \(name): no status within 60 s")
        }
        let namespaces = object["namespaces"] as? [String: [String: Any]] ?? [:]
        let siblings = object["siblings"] as? [[String: Any]] ?? []
        let envelopes = object["envelopes"] as? [String: Any] ?? [:]
        return Status(roots: namespaces.compactMapValues { $0["root"] as? String },
                      notebookRows: namespaces["notebook"]?["rows"] as? Int ?? 0,
                      notebookConflicts: namespaces["notebook"]?["conflicts"] as? Int ?? 0,
                      accepted: envelopes["accepted"] as? Int ?? 0, roundsStarted: object["rounds_started"] as? Int ?? 0,
                      partsAhead: object["parts_ahead"] as? Int ?? 0,
                      siblingsInSync: !siblings.isEmpty && siblings.allSatisfy { $0["in_sync"] as? Bool == true })
    }

    /// Events named `event` the device printed so far.
    func count(_ event: String) -> Int {
        let marker = "\"event\":\"\(event)\""
        return program.output.lines.lazy.filter { $0.contains(marker) }.count
    }

    /// Stops the device with `quit` and waits for it to exit (SIGTERM then SIGKILL after 60 s).
    func quit() async {
        _ = program.send("quit\n")
        if await program.waitForExit(timeout: .seconds(60)) == nil { await program.stop() }
    }

    /// A JSON object line, or nil.
    static func object(_ line: String) -> [String: Any]? {
        guard line.hasPrefix("{") else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}
