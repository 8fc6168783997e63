import FleetSimulation
import Foundation
import Synchronization
import SyncEnvelope
import SyncKernel
import TestServers

/// One `synckernel device` process a benchmark runs (this binary, `--events json`, fast loop
/// timings), read through its live `status` answers and its CPU time.
///
/// Invariants: the process runs under the test-server watchdog, so it never outlives the
/// benchmark; a wait returns nil at its deadline, never hangs; `cpuSeconds` is the process's user
/// and system time over all its threads, as `/proc/PID/stat` gives it (0 once it cannot be read).
final class BenchDevice: Sendable {
    /// What one `status` answer says.
    struct Status {
        /// Envelopes the gate accepted.
        let accepted: Int
        /// Envelopes the gate dropped, by reason name.
        let droppedByName: [String: Int]
        /// Payloads the relay layer dropped, all reasons.
        let relayDropped: Int
        /// Notebook rows the store holds.
        let notebookRows: Int
        /// `written` answers the device gave so far.
        let written: Int

        /// Drops the gate counted under `reason`.
        func dropped(_ reason: EnvelopeDropReason) -> Int { droppedByName[reason.name] ?? 0 }
    }

    /// The process.
    let program: WatchedProgram
    private let writtenBefore = Mutex(0)

    private init(program: WatchedProgram) {
        self.program = program
    }

    /// The standard namespaces' schema, which the devices run.
    static func schema() throws(SyncKernelError) -> SchemaFingerprint {
        try NamespaceSet(FleetSimulation.standardNamespaces).schema
    }

    /// Starts device `name` of the account in `directory/account` on `directory/NAME.sqlite` and
    /// waits for its `ready` line.
    static func launch(_ name: String, directory: String, relay: String) async throws -> BenchDevice {
        let executable = Bundle.main.executablePath ?? CommandLine.arguments[0]
        let program = try await WatchedProgram.launch(executable, [
            "device", "--account", directory + "/account", "--name", name, "--db", "\(directory)/\(name).sqlite", "--relay", relay,
            "--events", "json", "--debounce-ms", "50", "--retry-ms", "200", "--max-retry-ms", "1000",
        ], keptLines: 100_000)
        let device = BenchDevice(program: program)
        guard await program.output.wait(timeout: .seconds(30), until: { lines in
            lines.contains { Self.object($0)?["event"] as? String == "ready" }
        }) else {
            await program.stop()
            throw TestServerError.launchFailed(program: "synckernel device", reason: program.errors.tail())
        }
        return device
    }

    /// The process's CPU seconds so far.
    var cpuSeconds: Double { ProcessCPU.seconds(of: program.pid) }

    /// Asks for the status once and returns the answer (nil when none came within 30 s).
    func currentStatus() async throws -> Status? {
        let before = answers(program.output.lines).count
        guard program.send("status\n") else { return nil }
        guard await program.output.wait(timeout: .seconds(30), until: { [self] in answers($0).count > before }) else { return nil }
        return answers(program.output.lines).last.map(status)
    }

    /// Asks for the status every 100 ms until `condition` holds; nil at the deadline.
    func waitForStatus(timeout: Duration, _ condition: (Status) -> Bool) async throws -> Status? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = try await currentStatus(), condition(status) { return status }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    /// Counts the `written` answers so far as seen (the next `Status.written` counts from here).
    func resetWritten() {
        let seen = program.output.lines.lazy.compactMap(Self.object).filter { $0["event"] as? String == "written" }.count
        writtenBefore.withLock { $0 = seen }
    }

    private func answers(_ lines: [String]) -> [[String: Any]] {
        lines.compactMap(Self.object).filter { $0["namespaces"] != nil && $0["event"] == nil }
    }

    private func status(_ object: [String: Any]) -> Status {
        let envelopes = object["envelopes"] as? [String: Any] ?? [:]
        let relay = object["relay_dropped"] as? [String: Int] ?? [:]
        let notebook = (object["namespaces"] as? [String: [String: Any]])?["notebook"]?["rows"] as? Int ?? 0
        let written = program.output.lines.lazy.compactMap(Self.object).filter { $0["event"] as? String == "written" }.count
        return Status(accepted: envelopes["accepted"] as? Int ?? 0, droppedByName: envelopes["dropped"] as? [String: Int] ?? [:],
                      relayDropped: relay.values.reduce(0, +), notebookRows: notebook,
                      written: written - writtenBefore.withLock { $0 })
    }

    /// A JSON object line, or nil.
    static func object(_ line: String) -> [String: Any]? {
        guard line.hasPrefix("{") else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}
