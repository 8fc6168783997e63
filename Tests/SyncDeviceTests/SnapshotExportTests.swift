import Foundation
import NotebookNamespace
import SyncDevice
import SyncKernel
import TestServerSupport
import TestServers
import XCTest

/// A device exporting a snapshot for a sibling reads its store through a connection of its own,
/// beside the replica host: while the export runs, the device's status answers at once, its
/// writes commit and its sibling's writes reach it.
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

        let absorb = Task { try await devices[1].absorbSnapshot() }
        let requested = await exporterLog.wait(timeout: limit) { events in
            events.contains { if case .snapshotRequested = $0 { true } else { false } }
        }
        XCTAssertTrue(requested)
        let answered: @Sendable ([SyncDeviceEvent]) -> Bool = { events in
            events.contains { if case .snapshotAnswered = $0 { true } else { false } }
        }
        var statusMillis: [Double] = []
        var writeMillis: [Double] = []
        var siblingWrites = 0
        while !answered(exporterLog.items) {
            let asked = ContinuousClock.now
            _ = try await devices[0].currentStatus()
            statusMillis.append(Self.millis(asked.duration(to: .now)))
            if statusMillis.count % 5 == 0 {
                let note = DeviceWorld.note(rows + statusMillis.count)
                let writing = ContinuousClock.now
                try await devices[0].write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
                writeMillis.append(Self.millis(writing.duration(to: .now)))
                let theirs = DeviceWorld.note(2 * rows + statusMillis.count)
                try await devices[1].write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(theirs) }
                siblingWrites += 1
            }
        }
        let exportMillis = statusMillis.reduce(0, +) + writeMillis.reduce(0, +)
        let ordered = statusMillis.sorted()
        XCTAssertGreaterThanOrEqual(ordered.count, 10, "the export lasted long enough to watch (\(exportMillis) ms)")
        guard ordered.count >= 10 else { return }
        print(String(format: "export of %d rows: %.0f ms watched, %d status calls (median %.2f ms, p90 %.2f ms, max %.1f ms), %d writes (max %.1f ms)",
                     rows, exportMillis, ordered.count, ordered[ordered.count / 2], ordered[ordered.count * 9 / 10], ordered.last ?? 0,
                     writeMillis.count, writeMillis.max() ?? 0))
        XCTAssertLessThanOrEqual(ordered[ordered.count / 2], 50, "the median status while exporting (slowest: \(ordered.suffix(10)))")
        XCTAssertLessThanOrEqual(ordered[ordered.count * 9 / 10], 100, "the 90th percentile (slowest: \(ordered.suffix(10)))")
        XCTAssertTrue(writeMillis.allSatisfy { $0 <= 250 }, "writes while exporting (slowest: \(writeMillis.sorted().suffix(10)))")
        let report = try await absorb.value
        XCTAssertEqual(report.outcome.rowsImported, 0, "the requester held every row already")
        XCTAssertGreaterThanOrEqual(report.rows, Int64(rows), "the snapshot carried the whole store")
        let expected = rows + writeMillis.count + siblingWrites
        let heard = await Recorder(devices[0].status).wait(timeout: limit) { statuses in
            (statuses.last?.namespaces.first?.items ?? 0) >= expected
        }
        XCTAssertTrue(heard, "the sibling's writes during the export reached the exporter")
    }
}
