import Foundation
import NotebookNamespace
import SyncDevice
import SyncKernel
import TestServerSupport
import TestServers
import XCTest

/// A device absorbing a snapshot fetches, checks and decrypts it on a thread of its own and
/// imports it one transaction at a time on its replica host: meanwhile its status answers and its
/// writes commit (each waits for one import transaction at most, where before the whole absorb
/// held the host), and its sibling's frames wait for the import's end and then converge it.
final class SnapshotAbsorbTests: XCTestCase {
    private static func millis(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
    }

    func testADeviceAbsorbingASnapshotAnswersItsStatusAndTakesWrites() async throws {
        let rows = 40_000
        let server = try await startNatsServer()
        let world = try DeviceWorld(devices: 2)
        let store = try KernelStore(path: world.store(0), namespaces: NamespaceSet([NotebookNamespace.self]))
        try store.configureDevice(try world.account.certificate(name: world.names[0]).device)
        try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<rows { try tx.save(DeviceWorld.note(index)) }
        }
        store.close()
        let devices = try (0..<2).map { index in
            var configuration = try world.configuration(index, servers: [server.url])
            configuration.snapshotMaxSends = 24
            let device = SyncDevice(configuration)
            addTeardownBlock { await device.stop() }
            return device
        }
        let absorberLog = Recorder(devices[1].events)
        for device in devices { try await device.start() }
        let absorb = Task { try await devices[1].absorbSnapshot() }
        let importing = await absorberLog.wait(timeout: .seconds(120)) { events in
            events.contains { if case .snapshotProgress(let progress) = $0 { progress.phase == .importing } else { false } }
        }
        XCTAssertTrue(importing, "the import began")
        let ended: @Sendable ([SyncDeviceEvent]) -> Bool = { events in
            events.contains { event in
                switch event {
                case .snapshotAbsorbed, .snapshotFailed, .snapshotAbandoned: true
                default: false
                }
            }
        }
        var statusMillis: [Double] = []
        var writeMillis: [Double] = []
        while !ended(absorberLog.items) {
            let asked = ContinuousClock.now
            _ = try await devices[1].currentStatus()
            statusMillis.append(Self.millis(asked.duration(to: .now)))
            if statusMillis.count % 5 == 0 {
                let note = DeviceWorld.note(rows + statusMillis.count)
                let writing = ContinuousClock.now
                try await devices[1].write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
                writeMillis.append(Self.millis(writing.duration(to: .now)))
            }
        }
        let report = try await absorb.value
        let ordered = statusMillis.sorted()
        print(String(format: "absorb of %d rows (%d imported): %d status calls while importing (median %.2f ms, p90 %.2f ms, max %.1f ms), %d writes (max %.1f ms)",
                     rows, report.outcome.rowsImported, ordered.count, ordered.isEmpty ? 0 : ordered[ordered.count / 2],
                     ordered.isEmpty ? 0 : ordered[ordered.count * 9 / 10], ordered.last ?? 0, writeMillis.count, writeMillis.max() ?? 0))
        XCTAssertGreaterThanOrEqual(report.rows, Int64(rows), "the snapshot carried the whole store")
        XCTAssertGreaterThanOrEqual(ordered.count, 10, "the import lasted long enough to watch")
        guard ordered.count >= 10 else { return }
        XCTAssertLessThanOrEqual(ordered[ordered.count / 2], 50, "the median status while importing (slowest: \(ordered.suffix(10)))")
        XCTAssertLessThanOrEqual(ordered[ordered.count * 9 / 10], 100, "the 90th percentile (slowest: \(ordered.suffix(10)))")
        let writes = writeMillis.sorted()
        XCTAssertLessThanOrEqual(writes.isEmpty ? 0 : writes[writes.count / 2], 250, "the median write while importing (slowest: \(writes.suffix(10)))")
        let expected = rows + writeMillis.count
        for device in devices {
            let holds = await Recorder(device.status).wait(timeout: .seconds(120)) { statuses in
                (statuses.last?.namespaces.first?.items ?? 0) >= expected
            }
            XCTAssertTrue(holds, "both devices end with every row and every write made during the import")
        }
    }
}
