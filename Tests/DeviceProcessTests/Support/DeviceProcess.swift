import Foundation
import Synchronization
import TestServerSupport
import TestServers
import XCTest

/// One `synckernel device` process a test runs, with `--events json`, fast loop timings and its
/// standard input held open; restartable on the same store.
///
/// Invariants: every line the process prints on standard output is kept (its events and the
/// answers to its commands, in order); `stop()` leaves no process behind; a wait returns false at
/// its deadline, never hangs.
final class DeviceProcess: Sendable {
    /// The device's name in the account directory.
    let name: String
    /// The store's path.
    let store: String
    private let account: String
    private let relay: [String]
    private let extra: [String]
    private let runs: Mutex<(current: WatchedProgram, earlier: [[String]])>

    private init(name: String, store: String, account: String, relay: [String], extra: [String], program: WatchedProgram) {
        self.name = name
        self.store = store
        self.account = account
        self.relay = relay
        self.extra = extra
        runs = Mutex((program, []))
    }

    /// The current run's process.
    var program: WatchedProgram { runs.withLock { $0.current } }
    /// Output lines of earlier runs of this device (before a restart).
    var earlierRuns: [[String]] { runs.withLock { $0.earlier } }

    /// The command line of a device run.
    private static func arguments(name: String, store: String, account: String, relay: [String], extra: [String]) -> [String] {
        ["device", "--account", account, "--name", name, "--db", store, "--relay", relay.joined(separator: ","), "--events", "json",
         "--debounce-ms", "50", "--retry-ms", "200", "--max-retry-ms", "1000"] + extra
    }

    /// Starts device `name` (with the `extra` arguments) and, when `waitForReady`, waits for its
    /// `ready` line (a device asking to join is ready only once approved).
    static func launch(name: String, store: String, account: String, relay: [String], extra: [String] = [],
                       waitForReady: Bool = true) async throws -> DeviceProcess {
        let program = try await WatchedProgram.launch(try SynckernelProgram.path(),
                                                      arguments(name: name, store: store, account: account, relay: relay, extra: extra),
                                                      keptLines: 200_000)
        let device = DeviceProcess(name: name, store: store, account: account, relay: relay, extra: extra, program: program)
        guard waitForReady else { return device }
        guard await device.waitFor(timeout: .seconds(30), { $0.contains { Self.object($0)?["event"] as? String == "ready" } }) else {
            await program.stop()
            throw DeviceProcessError.notReady(name: name, errors: program.errors.tail())
        }
        return device
    }

    /// Starts the device again on the same store (after it exited or was killed).
    func restart() async throws {
        let previous = program
        await previous.stop()
        let next = try await WatchedProgram.launch(try SynckernelProgram.path(),
                                                   Self.arguments(name: name, store: store, account: account, relay: relay,
                                                                  extra: extra),
                                                   keptLines: 200_000)
        runs.withLock { runs in
            runs.earlier.append(previous.output.lines)
            runs.current = next
        }
        guard await waitFor(timeout: .seconds(30), { $0.contains { Self.object($0)?["event"] as? String == "ready" } }) else {
            throw DeviceProcessError.notReady(name: name, errors: program.errors.tail())
        }
    }

    /// Stops the process (SIGTERM, then SIGKILL); idempotent.
    func stop() async {
        await program.stop()
    }

    /// A JSON object line, or nil.
    static func object(_ line: String) -> [String: Any]? {
        guard line.hasPrefix("{") else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    /// The JSON objects this run printed so far.
    var objects: [[String: Any]] { program.output.lines.compactMap(Self.object) }

    /// The objects this run printed whose `event` is `name`.
    func events(_ name: String) -> [[String: Any]] {
        objects.filter { $0["event"] as? String == name }
    }

    /// Waits until `condition` holds on this run's output lines.
    func waitFor(timeout: Duration, _ condition: @escaping @Sendable ([String]) -> Bool) async -> Bool {
        await program.output.wait(timeout: timeout, until: condition)
    }

    /// Waits until this run printed at least `count` events named `name`.
    func waitForEvents(_ name: String, count: Int = 1, timeout: Duration = .seconds(30)) async -> Bool {
        await waitFor(timeout: timeout) { lines in
            lines.lazy.compactMap(Self.object).filter { $0["event"] as? String == name }.count >= count
        }
    }

    /// Sends `demo-write count` and returns its `written` line once it came.
    func demoWrite(_ count: Int, timeout: Duration = .seconds(60)) async throws -> [String: Any] {
        let answer = sendDemoWrite(count)
        return try await written(answer, timeout: timeout)
    }

    /// Sends `demo-write count` without waiting; returns the index of its `written` line to come.
    func sendDemoWrite(_ count: Int) -> Int {
        let before = events("written").count
        program.send("demo-write \(count)\n")
        return before
    }

    /// The `index`th `written` line of this run, once it came.
    func written(_ index: Int, timeout: Duration = .seconds(60)) async throws -> [String: Any] {
        guard await waitForEvents("written", count: index + 1, timeout: timeout) else {
            throw DeviceProcessError.noAnswer(name: name, command: "demo-write", errors: program.errors.tail())
        }
        return events("written")[index]
    }

    /// Sends `status` and returns the status object it answered.
    func status(timeout: Duration = .seconds(30)) async throws -> [String: Any] {
        let answers: @Sendable ([String]) -> [[String: Any]] = { lines in
            lines.compactMap(Self.object).filter { $0["namespaces"] != nil && $0["event"] == nil }
        }
        let before = answers(program.output.lines).count
        program.send("status\n")
        guard await waitFor(timeout: timeout, { answers($0).count > before }) else {
            throw DeviceProcessError.noAnswer(name: name, command: "status", errors: program.errors.tail())
        }
        return answers(program.output.lines)[before]
    }

    /// Sends `quit` and waits for the exit; the exit status, nil if it did not exit in time.
    func quit(timeout: Duration = .seconds(30)) async -> Int32? {
        program.send("quit\n")
        return await program.waitForExit(timeout: timeout)
    }
}

/// Why a device process did not do what a test waited for.
enum DeviceProcessError: Error, CustomStringConvertible {
    case notReady(name: String, errors: String)
    case noAnswer(name: String, command: String, errors: String)

    var description: String {
        switch self {
        case .notReady(let name, let errors): "device \(name) did not report ready; its log ends with:\n\(errors)"
        case .noAnswer(let name, let command, let errors): "device \(name) did not answer \(command); its log ends with:\n\(errors)"
        }
    }
}

/// `DeviceProcess` drives every process test: check that it reads only JSON object lines, that
/// its commands get the answers they wait for from a real device.
final class DeviceProcessSelfTests: XCTestCase {
    func testOnlyJSONObjectLinesAreObjects() {
        XCTAssertEqual(DeviceProcess.object(#"{"event":"ready","n":1}"#)?["event"] as? String, "ready")
        XCTAssertNil(DeviceProcess.object("synckernel device: started"), "a log line")
        XCTAssertNil(DeviceProcess.object("[1,2]"), "not an object")
        XCTAssertNil(DeviceProcess.object("{not json"), "a broken line")
    }

    func testADeviceAnswersWriteStatusAndQuitThroughTheHelper() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["solo"])
        let device = try await DeviceProcess.launch(name: "solo", store: fleet.store("solo"), account: fleet.account,
                                                    relay: [server.url])
        addTeardownBlock { await device.stop() }
        XCTAssertEqual(device.events("ready").count, 1)
        let written = try await device.demoWrite(4)
        XCTAssertEqual(written["count"] as? Int, 4, "the written line of this command")
        let status = try await device.status()
        let notebook = (status["namespaces"] as? [String: Any])?["notebook"] as? [String: Any]
        XCTAssertEqual(notebook?["rows"] as? Int, 3, "four writes: three inserts and one edit")
        XCTAssertNil(status["event"], "a status answer, not an event")
        let exit = await device.quit()
        XCTAssertEqual(exit, 0)
    }
}
