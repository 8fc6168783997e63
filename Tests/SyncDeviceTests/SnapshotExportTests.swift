import Foundation
import NotebookNamespace
import SyncDevice
import SyncKernel
import TestServerSupport
import TestServers
import Synchronization
import XCTest

/// A device exporting a snapshot for a sibling reads its store through a connection of its own,
/// beside the replica host: while the export runs, the device's status answers at once, its
/// writes commit, and it answers its sibling as fast as under the same load without an export (a
/// sibling's write reaches it, pushed or through a digest round, within 100 ms at the median, and
/// within 50 ms of the median without an export).
final class SnapshotExportTests: XCTestCase {
    /// Fills the store of device 0 with `rows` notes and copies it to device 1, so both start equal.
    private func preload(_ world: DeviceWorld, rows: Int) throws {
        let store = try KernelStore(path: world.store(0), namespaces: NamespaceSet([NotebookNamespace.self]))
        try store.configureDevice(try world.account.certificate(name: world.names[0]).device)
        try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<rows { try tx.save(DeviceWorld.note(index)) }
        }
        store.close()
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: world.store(0) + suffix) {
            try FileManager.default.copyItem(atPath: world.store(0) + suffix, toPath: world.store(1) + suffix)
        }
    }

    private static func millis(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
    }

    /// 40,000 rows: enough that the export takes a good part of a second in a debug build.
    func testADeviceExportingASnapshotAnswersItsStatusTakesWritesAndHearsItsSibling() async throws {
        try await exportWhileWatching(rows: 40_000)
    }

    /// The figure, for `make test-large`: a 1e6-row store.
    func testAtScaleAMillionRowExportLeavesTheStatusAndTheWritesAnswering() async throws {
        try await exportWhileWatching(rows: 1_000_000, within: .seconds(600))
    }

    /// Two devices holding copies of a `rows`-row store; the second asks for a snapshot, and while
    /// the first exports it the test times the first's status and writes and writes on the second.
    private func exportWhileWatching(rows: Int, within limit: Duration = .seconds(60)) async throws {
        let server = try await startNatsServer()
        let world = try DeviceWorld(devices: 2)
        try preload(world, rows: rows)
        let devices = try (0..<2).map { index in
            var configuration = try world.configuration(index, servers: [server.url])
            // The requester waits as long as the export may take (a debug build's 1e6 rows: minutes).
            configuration.snapshotMaxSends = Int(limit.components.seconds / 5)
            let device = SyncDevice(configuration)
            addTeardownBlock { await device.stop() }
            return device
        }
        let exporterLog = Recorder(devices[0].events)
        for device in devices { try await device.start() }
        let inStep = await Recorder(devices[0].status).wait(timeout: limit) { statuses in
            statuses.last?.siblings.first?.inSync == true
        }
        XCTAssertTrue(inStep, "the two copies meet in step")

        // The same load without an export first: status calls, writes, and a sibling's writes.
        let sibling = try world.account.certificate(name: world.names[1]).device
        let load = ExportLoad(exporter: devices[0], sibling: devices[1], siblingID: sibling, log: exporterLog, within: limit)
        let idle = try await load.run(exporterNotes: 3 * rows, siblingNotes: 4 * rows, probes: 20) { _ in false }
        XCTAssertEqual(idle.reached.count, 20, "a sibling's writes reach the idle device")
        guard idle.reached.count == 20 else { return }

        let absorb = Task { try await devices[1].absorbSnapshot() }
        let requested = await exporterLog.wait(timeout: limit) { events in
            events.contains { if case .snapshotRequested = $0 { true } else { false } }
        }
        XCTAssertTrue(requested)
        let exporting = try await load.run(exporterNotes: rows, siblingNotes: 2 * rows, probes: .max) { events in
            events.contains { if case .snapshotAnswered = $0 { true } else { false } }
        }
        let (statusMillis, writeMillis, reachedMillis) = (exporting.status, exporting.writes, exporting.reached.sorted())
        let siblingWrites = idle.reached.count + reachedMillis.count
        let idleMedian = idle.reached.sorted()[idle.reached.count / 2]
        let exportMillis = statusMillis.reduce(0, +) + writeMillis.reduce(0, +)
        let ordered = statusMillis.sorted()
        XCTAssertGreaterThanOrEqual(ordered.count, 10, "the export lasted long enough to watch (\(exportMillis) ms)")
        guard ordered.count >= 10 else { return }
        print(String(format: "export of %d rows: %.0f ms watched, %d status calls (median %.2f ms, p90 %.2f ms, max %.1f ms), %d writes (max %.1f ms)",
                     rows, exportMillis, ordered.count, ordered[ordered.count / 2], ordered[ordered.count * 9 / 10], ordered.last ?? 0,
                     writeMillis.count, writeMillis.max() ?? 0))
        XCTAssertGreaterThanOrEqual(reachedMillis.count, 3, "sibling writes during the export")
        guard reachedMillis.count >= 3 else { return }
        let reachedMedian = reachedMillis[reachedMillis.count / 2]
        let idleOrdered = idle.reached.sorted()
        print(String(format: "a sibling's write reaching the exporter: without an export %d writes, median %.1f ms, p90 %.1f ms, max %.1f ms; "
                     + "while exporting %d writes, median %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms",
                     idleOrdered.count, idleMedian, idleOrdered[idleOrdered.count * 9 / 10], idleOrdered.last ?? 0,
                     reachedMillis.count, reachedMedian, reachedMillis[reachedMillis.count * 9 / 10],
                     reachedMillis[reachedMillis.count * 99 / 100], reachedMillis.last ?? 0))
        XCTAssertLessThanOrEqual(reachedMedian, 100,
                                 "the exporter answers its sibling within 100 ms (without an export \(idle.reached.sorted()) ms; while exporting \(reachedMillis))")
        XCTAssertLessThanOrEqual(reachedMedian, idleMedian + 50, "the export adds little to the time a sibling's write takes")
        XCTAssertLessThanOrEqual(ordered[ordered.count / 2], 50, "the median status while exporting (slowest: \(ordered.suffix(10)))")
        XCTAssertLessThanOrEqual(ordered[ordered.count * 9 / 10], 100, "the 90th percentile (slowest: \(ordered.suffix(10)))")
        XCTAssertTrue(writeMillis.allSatisfy { $0 <= 250 }, "writes while exporting (slowest: \(writeMillis.sorted().suffix(10)))")
        let report = try await absorb.value
        XCTAssertEqual(report.outcome.rowsImported, 0, "the requester held every row already")
        XCTAssertGreaterThanOrEqual(report.rows, Int64(rows), "the snapshot carried the whole store")
        let expected = rows + idle.writes.count + writeMillis.count + siblingWrites
        let heard = await Recorder(devices[0].status).wait(timeout: limit) { statuses in
            (statuses.last?.namespaces.first?.items ?? 0) >= expected
        }
        XCTAssertTrue(heard, "the sibling's writes during the export reached the exporter")
    }
}

/// The load a test puts on an exporting device: status calls one after another with a write of
/// its own every `writeInterval`, while its sibling writes one note after another, each once the
/// last reached it.
private struct ExportLoad: Sendable {
    /// What one run timed, in milliseconds.
    struct Timed: Sendable {
        var status: [Double] = []
        var writes: [Double] = []
        var reached: [Double] = []
    }

    let exporter: SyncDevice
    let sibling: SyncDevice
    let siblingID: DeviceID
    let log: Recorder<SyncDeviceEvent>
    let within: Duration

    /// How often the exporter writes (a write of its own moves its root, and a sibling's write
    /// that crosses one takes a digest round more to land: about 100 ms in all).
    static let writeInterval = Duration.milliseconds(200)

    private static func millis(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
    }

    /// Runs the load until `done` holds for the exporter's events or the sibling made `probes`
    /// writes; the exporter writes notes from `exporterNotes` on, the sibling from `siblingNotes`.
    func run(exporterNotes: Int, siblingNotes: Int, probes: Int,
             until done: @escaping @Sendable ([SyncDeviceEvent]) -> Bool) async throws -> Timed {
        let finished = Mutex(false)
        let probing = Task {
            defer { finished.withLock { $0 = true } }
            var reached: [Double] = []
            while reached.count < probes, !done(log.items) {
                guard let millis = try await reach(DeviceWorld.note(siblingNotes + reached.count)) else { break }
                // A write still on its way when the export answered met the sibling's absorb,
                // which holds its frames and timers: not the exporter's answer time.
                guard !done(log.items) else { break }
                reached.append(millis)
            }
            return reached
        }
        var timed = Timed()
        var lastWrite = ContinuousClock.now
        while !done(log.items), !finished.withLock({ $0 }) {
            let asked = ContinuousClock.now
            _ = try await exporter.currentStatus()
            timed.status.append(Self.millis(asked.duration(to: .now)))
            if lastWrite.duration(to: .now) >= Self.writeInterval {
                lastWrite = .now
                let note = DeviceWorld.note(exporterNotes + timed.writes.count)
                let writing = ContinuousClock.now
                try await exporter.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
                timed.writes.append(Self.millis(writing.duration(to: .now)))
            }
        }
        timed.reached = try await probing.value
        return timed
    }

    /// How long one write of `note` on the sibling takes to reach the exporter (its replica
    /// applies the row), or nil when it did not within `within`.
    private func reach(_ note: Note) async throws -> Double? {
        let seen = log.items.count
        let writing = ContinuousClock.now
        try await sibling.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
        let sender = siblingID
        let arrived = await log.wait(timeout: within) { events in
            events.dropFirst(seen).contains { event in
                if case .applied(let peer, let changes) = event { peer == sender && changes.rows > 0 } else { false }
            }
        }
        return arrived ? Self.millis(writing.duration(to: .now)) : nil
    }
}
