import Foundation
import NotebookNamespace
import SyncKernel

/// Builds a fleet of notebook devices on SQLite files, makes differences, and runs it to convergence.
///
/// The run: device 0 creates the shared rows and its store file is copied to every other device
/// (the way a new device absorbs a snapshot); then `differences` edits, inserts, deletes and
/// concurrent edit pairs are spread over the devices during the first second, the last device's
/// wall clock running `clockSkewSeconds` ahead; then the loop runs over the in-process relay.
/// Invariant: deterministic for a given configuration.
public enum FleetSimulation {
    /// Runs one simulation.
    public static func run(_ config: SimulationConfig) throws -> SimulationReport {
        let started = Date()
        let directory = try config.directory ?? makeTemporaryDirectory(seed: config.seed)
        defer { if config.directory == nil { try? FileManager.default.removeItem(atPath: directory) } }
        var random = SeededGenerator(seed: config.seed)
        let namespaces = try NamespaceSet([NotebookNamespace.self])
        let keys = try (0..<config.devices).map { index in
            try DeviceKeyPair(seed: SHA256.hash(domain: Array("synckernel.sim.device".utf8),
                                                 Array("\(config.seed)/\(index)".utf8)))
        }
        let account = SHA256.hash(domain: Array("synckernel.sim.account".utf8), Array("\(config.seed)".utf8))
        let devices = try keys.map { try $0.deviceID }
        let paths = (0..<config.devices).map { "\(directory)/device-\($0).sqlite" }

        var workload = NotebookWorkload(random: SeededGenerator(seed: random.next()))
        let shared = workload.sharedNotes(count: config.rows)
        try seedSharedRows(shared, path: paths[0], device: devices[0], namespaces: namespaces, copies: Array(paths.dropFirst()))

        let replicas = try (0..<config.devices).map { index in
            try Replica(device: devices[index], account: account, siblings: devices,
                        store: KernelStore(path: paths[index], namespaces: namespaces, responsePolicy: config.responsePolicy))
        }
        let fleet = Fleet(replicas: replicas, conditions: config.conditions, seed: random.next())
        let plan = workload.differences(count: config.differences, devices: config.devices, existing: shared.map(\.id))
        for step in plan {
            fleet.run(until: step.atMillis)
            let skew = step.device == config.devices - 1 ? config.clockSkewSeconds : 0
            let wallClock = NotebookWorkload.epoch.addingTimeInterval(TimeInterval(fleet.now / 1000 + skew))
            try fleet.write(on: step.device, NotebookNamespace.self) { tx throws(SyncKernelError) in
                try step.apply(to: tx, wallClock: wallClock)
            }
        }
        fleet.run(until: config.limitMillis)

        var links: [SimulationReport.Link] = []
        var framesByKind: [String: Int] = [:]
        for (from, sender) in devices.enumerated() {
            for (to, recipient) in devices.enumerated() where from != to {
                guard let traffic = fleet.relay.traffic[InProcessRelay.Link(from: sender, to: recipient)] else { continue }
                links.append(.init(from: from, to: to, frames: traffic.frames, bytes: traffic.bytes, lost: traffic.lost))
                for (kind, count) in traffic.framesByKind { framesByKind[kind, default: 0] += count }
            }
        }
        let converged = fleet.allRootsMatch
        let events = fleet.events.map(\.event)
        let report = SimulationReport(
            config: config, converged: converged,
            rounds: replicas.reduce(0) { $0 + $1.roundsStarted },
            frames: links.reduce(0) { $0 + $1.frames }, bytes: links.reduce(0) { $0 + $1.bytes },
            framesByKind: framesByKind,
            virtualMillis: converged ? (fleet.convergedAt ?? fleet.now) : fleet.now,
            links: links,
            storms: events.filter { if case .stormSuspected = $0 { return true } else { return false } }.count,
            refusals: events.filter {
                switch $0 {
                case .frameRefused, .applyFailed, .peerSchemaMismatch: return true
                default: return false
                }
            }.count,
            rowsPerDevice: try replicas.map { try $0.store.leaves(namespace: NotebookNamespace.name).count },
            wallMillis: Int(Date().timeIntervalSince(started) * 1000))
        for replica in replicas { replica.store.close() }
        return report
    }

    private static func seedSharedRows(_ notes: [Note], path: String, device: DeviceID, namespaces: NamespaceSet,
                                       copies: [String]) throws {
        let store = try KernelStore(path: path, namespaces: namespaces)
        try store.configureDevice(device)
        try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            for note in notes { try tx.save(note) }
        }
        try store.checkpoint()
        store.close()
        for copy in copies {
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.copyItem(atPath: path, toPath: copy)
        }
    }

    private static func makeTemporaryDirectory(seed: UInt64) throws -> String {
        let path = NSTemporaryDirectory() + "synckernel-sim-\(seed)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
