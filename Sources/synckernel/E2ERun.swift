import Foundation
import SyncKernel

/// One point of `synckernel bench-e2e` on copies of a preload's stores: both devices start and
/// meet (equal roots: the marks of a synced moment are recorded), the plan's differences are
/// written (while both run, or while one is away), and the window runs until both report equal
/// roots.
///
/// Invariants: every device process it starts is stopped before it returns or throws; the
/// window's counters (server totals, CPU, accepted envelopes, rounds) are read with nothing else
/// running against the server but the two devices; equal roots means every namespace's root is
/// the same on both (the notebook's row count too); the point's folder is removed at the end.
struct E2ERun {
    /// The point.
    let point: E2EPoint
    /// The stores it starts from.
    let preload: E2EPreload
    /// The server.
    let relay: E2ERelay
    /// The folder for this point's store copies.
    let directory: String
    /// Seconds the sync may take before the point counts as not converged.
    let boundSeconds: Double
    /// The seed of the plan.
    let seed: UInt64
    /// The negentropy driver, nil when there is none.
    let negentropy: NegentropyComparison?
    /// The in-memory bench's figure for the same point, shown beside.
    let inMemory: (ratio: Double?, roundTrips: Int)?
    /// Where each device's event lines of the window are kept (`--log-dir`), nil for nowhere.
    var logDirectory: String? = nil

    /// Runs the point; `progress` gets a line per step.
    func measure(progress: (String) -> Void) async throws -> E2EResult {
        let manager = FileManager.default
        try? manager.removeItem(atPath: directory)
        try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? manager.removeItem(atPath: directory) }
        let pathA = directory + "/a.sqlite"
        let pathB = directory + "/b.sqlite"
        try E2EPreload.copyStore(preload.pathA, to: pathA)
        try E2EPreload.copyStore(preload.pathB, to: pathB)
        let plan = E2EPlan(rows: point.rows, differences: point.differences, rowBytes: point.rowBytes, seed: seed, sides: point.sides)

        var a = try await E2EDevice.launch("a", account: preload.account, db: pathA, relay: relay.url)
        var b: E2EDevice
        do {
            b = try await E2EDevice.launch("b", account: preload.account, db: pathB, relay: relay.url)
        } catch {
            await a.quit()
            throw error
        }
        var running = [a, b]
        do {
            guard try await Self.waitForEqualRoots(a, b, timeout: .seconds(600)) != nil else {
                throw E2EError("the copied stores did not meet within 600 s")
            }
            // Let the meeting's last digests land before the window opens.
            try await Task.sleep(for: .seconds(1))
            progress("\(point.label): devices met; writing \(point.differences) differences")
            // The lines each device had written before the window (a restarted device is a new
            // process: all of its lines belong to the window).
            var lineCounts = [a.program.output.lines.count, b.program.output.lines.count]
            var window: E2EWindow
            switch point.restart {
            case .none:
                window = try await E2EWindow.open(relay: relay, a, b)
                let writing = ContinuousClock.now
                async let writtenA: Void = Self.write(plan.commands(forA: true), on: a)
                async let writtenB: Void = Self.write(plan.commands(forA: false), on: b)
                _ = try await (writtenA, writtenB)
                window.writeSeconds = writing.duration(to: .now).seconds
            case .a, .b:
                let awayIsA = point.restart == .a
                let away = awayIsA ? a : b
                let stays = awayIsA ? b : a
                await away.quit()
                running = [stays]
                let writing = ContinuousClock.now
                let offline = try await E2EDevice.launch(away.name, account: preload.account, db: awayIsA ? pathA : pathB,
                                                         relay: try E2ERelay.deadURL())
                running.append(offline)
                async let writtenAway: Void = Self.write(plan.commands(forA: awayIsA), on: offline)
                async let writtenStays: Void = Self.write(plan.commands(forA: !awayIsA), on: stays)
                _ = try await (writtenAway, writtenStays)
                await offline.quit()
                running = [stays]
                let wrote = writing.duration(to: .now).seconds
                // The device that stayed sends its pushes and digest to the away one's inbox
                // meanwhile (a large push takes seconds to read and seal); the window opens once
                // the server has seen nothing published for a second, just before the restart.
                try await Task.sleep(for: .seconds(2))
                let counters = try await relay.quietCounters(for: .seconds(1), within: .seconds(120))
                let relaunched = ContinuousClock.now
                let restarted = try await E2EDevice.launch(away.name, account: preload.account, db: awayIsA ? pathA : pathB,
                                                           relay: relay.url)
                running.append(restarted)
                if awayIsA { a = restarted } else { b = restarted }
                lineCounts[awayIsA ? 0 : 1] = 0
                window = try await E2EWindow.open(relay: relay, a, b, counters: counters, fresh: awayIsA ? "a" : "b",
                                                  opened: relaunched)
                window.writeSeconds = wrote
            }
            progress("\(point.label): written in \(String(format: "%.2f", window.writeSeconds)) s; waiting for equal roots")
            let synced = ContinuousClock.now
            let converged = try await Self.waitForEqualRoots(a, b, timeout: .seconds(boundSeconds)) != nil
            let wall = (point.restart == .none ? synced : window.opened).duration(to: .now).seconds
            // Frames still in flight when the roots matched (the last confirming digest) land first.
            try await Task.sleep(for: .milliseconds(500))
            let closed = try await window.close()
            keepLogs(of: [a, b], from: lineCounts)
            for device in running { await device.quit() }
            running = []
            progress("\(point.label): \(converged ? "converged" : "NOT converged") in \(String(format: "%.2f", wall)) s, "
                     + "\(closed.bytes) bytes through the relay")
            var figure: NegentropyComparison.Figure?
            var note: String?
            if let negentropy, converged {
                do {
                    figure = try negentropy.figure(plan: plan, preloaded: preload.items, after: try Self.items(of: plan, in: pathA),
                                                   directory: directory)
                } catch {
                    note = "negentropy: \(error)"
                }
            } else if negentropy == nil {
                note = "no negentropy driver (make negentropy-driver)"
            }
            return E2EResult(point: point, converged: converged, relayBytes: closed.bytes, relayMessages: closed.messages,
                             changedRowBytes: plan.changedRowBytes, wallSeconds: wall, writeSeconds: window.writeSeconds,
                             cpuMilliseconds: closed.cpu, frames: closed.frames, roundsStarted: closed.rounds, partsAhead: closed.ahead, inMemory: inMemory,
                             negentropy: figure, note: note)
        } catch {
            for device in running { await device.quit() }
            throw error
        }
    }

    /// Writes each device's event lines from `firsts` on to `logDirectory`, when one was given; a
    /// failure to write is reported on standard error and does not fail the point.
    private func keepLogs(of devices: [E2EDevice], from firsts: [Int]) {
        guard let logDirectory else { return }
        let label = point.label.replacingOccurrences(of: "--", with: "").replacingOccurrences(of: " ", with: "_")
        for (device, first) in zip(devices, firsts) {
            let text = device.program.output.lines.dropFirst(first).joined(separator: "\n") + "\n"
            let path = logDirectory + "/\(label)-\(device.name).jsonl"
            do {
                try FileManager.default.createDirectory(atPath: logDirectory, withIntermediateDirectories: true)
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                FileHandle.standardError.write(Data("bench-e2e: could not keep \(path): \(error)\n".utf8))
            }
        }
    }

    /// Polls both devices' status every 200 ms until their roots are equal and each records the
    /// other in sync; the matching statuses, or nil at the deadline.
    static func waitForEqualRoots(_ a: E2EDevice, _ b: E2EDevice,
                                  timeout: Duration) async throws -> (E2EDevice.Status, E2EDevice.Status)? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let first = try await a.status()
            let second = try await b.status()
            if !first.roots.isEmpty, first.roots == second.roots, first.notebookRows == second.notebookRows {
                return (first, second)
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        return nil
    }

    /// Sends each command to `device` in turn and waits for its answer.
    private static func write(_ commands: [String], on device: E2EDevice) async throws {
        for command in commands { _ = try await device.command(command, answer: "bench_rows", timeout: .seconds(3_600)) }
    }

    /// What store `path` (stopped) holds for each key the plan changed: its structure item, nil for none.
    private static func items(of plan: E2EPlan, in path: String) throws -> [[UInt8]: [UInt8]?] {
        let reader = try StoreReader(path: path)
        defer { reader.close() }
        var items: [[UInt8]: [UInt8]?] = [:]
        for key in plan.keys(forA: true) + plan.keys(forA: false) {
            items[key] = try reader.key(key, namespace: "notebook")?.item
        }
        return items
    }
}
