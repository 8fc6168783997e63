import FleetSimulation
import Foundation
import NotebookNamespace
import SyncKernel
import SyncKernelSimulator

/// `synckernel bench` with neither `--rows` nor `--grid`: the earlier side-by-side measurements
/// in one run, printed as numbers and ratios (`make bench`).
///
/// 1. Wire cost: the same seeded fleet run with the spec's frames and with the sketch exchange
///    (bytes, frames, virtual time).
/// 2. Digest cost after one write: the persisted structure against the spec's full rescan.
/// Invariant: timings on a shared machine are only meaningful as ratios within one run.
enum BenchComparisons {
    /// Runs both comparisons over `rows` notebook rows; returns the exit code.
    static func run(rows: Int, seed: UInt64) -> Int32 {
        do {
            try wireCost(rows: rows, seed: seed)
            try digestCost(rows: rows, seed: seed)
            return 0
        } catch {
            FileHandle.standardError.write(Data("synckernel bench: \(error)\n".utf8))
            return 2
        }
    }

    /// The same three-device fleet under the spec's frames and the sketch exchange: bytes, frames, time.
    private static func wireCost(rows: Int, seed: UInt64) throws {
        print("== wire cost: 3 devices, \(rows) rows, 100 differences, 30 ms, seed \(seed)")
        var reports: [(String, SimulationReport)] = []
        for (label, mode) in [("spec", ReconcileMode.spec), ("sketch", ReconcileMode.sketch)] {
            var config = SimulationConfig()
            config.rows = rows
            config.seed = seed
            config.mode = mode
            reports.append((label, try FleetSimulation.run(config)))
        }
        for (label, report) in reports {
            print(String(format: "%@ converged=%@ bytes=%9d frames=%4d rounds=%3d virtual=%6lld ms wall=%6d ms",
                         label.padding(toLength: 22, withPad: " ", startingAt: 0), report.converged ? "yes" : "NO", report.bytes, report.frames,
                         report.rounds, report.virtualMillis, report.wallMillis))
        }
        let (spec, sketch) = (reports[0].1, reports[1].1)
        print(String(format: "ratio sketch/spec: bytes %.3f  virtual time %.3f",
                     Double(sketch.bytes) / Double(max(spec.bytes, 1)),
                     Double(sketch.virtualMillis) / Double(max(spec.virtualMillis, 1))))
    }

    /// The maintained digest after one write against a full rescan of the rows.
    private static func digestCost(rows: Int, seed: UInt64) throws {
        print("== digest after one write: \(rows) notebook rows")
        let directory = NSTemporaryDirectory() + "synckernel-bench-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try KernelStore(path: directory + "/bench.sqlite", namespaces: NamespaceSet([NotebookNamespace.self]))
        try store.configureDevice(try DeviceKeyPair(seed: [UInt8](repeating: 1, count: 32)).deviceID)
        var random = SeededGenerator(seed: seed)
        let epoch = Date(timeIntervalSince1970: 1_790_000_000)
        let ids = (0..<rows).map { _ in random.bytes(16) }
        try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            for (index, id) in ids.enumerated() {
                try tx.save(Note(id: id, title: "Note \(index)", body: String(repeating: "body ", count: 30),
                                 createdAt: epoch, updatedAt: epoch))
            }
        }
        let rounds = 20
        var maintained: Duration = .zero
        var rescanned: Duration = .zero
        let clock = ContinuousClock()
        for round in 0..<rounds {
            let id = ids[Int(random.next() % UInt64(ids.count))]
            try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
                guard var note = try tx.row(forKey: id) else { return }
                note.title = "edited \(round)"
                note.updatedAt = epoch.addingTimeInterval(TimeInterval(round + 1))
                try tx.save(note)
            }
            var fast: StateDigest?
            maintained += clock.measure { fast = store.stateDigest() }
            var slow: StateDigest?
            rescanned += try clock.measure { slow = try store.recomputedStateDigest() }
            guard fast == slow else { throw SyncKernelError(.corruptBookkeeping, "maintained digest differs from rescan") }
        }
        let fastMillis = Double(maintained.components.attoseconds) / 1e15 + Double(maintained.components.seconds) * 1e3
        let slowMillis = Double(rescanned.components.attoseconds) / 1e15 + Double(rescanned.components.seconds) * 1e3
        print(String(format: "persisted structure: %8.3f ms per digest", fastMillis / Double(rounds)))
        print(String(format: "full rescan:      %8.3f ms per digest", slowMillis / Double(rounds)))
        print(String(format: "ratio rescan/persisted: %.1f", slowMillis / max(fastMillis, 0.0001)))
    }
}
