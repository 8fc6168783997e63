import Foundation
import NotebookNamespace
import SyncKernel
import SyncKernelSimulator

/// Builds a fleet of devices on SQLite files, makes differences, and runs it to convergence.
///
/// The run: device 0 creates the shared rows and its store file is copied to every other device
/// (the way a new device absorbs a snapshot, so each copy takes a fresh device epoch, its nonce
/// drawn from the seed); then the differences are spread over the devices during the first
/// `writeSpanMillis` (a second by default), the last device's wall clock running
/// `clockSkewSeconds` ahead, while the loop runs over the in-process relay; then the loop runs until
/// nothing is left to do or `limitMillis`. The classic run drives the notebook with edits, inserts,
/// deletes and concurrent edit pairs; `namespaces` selects a mixed run over any of the thirteen
/// namespaces. Invariant: deterministic for a given configuration.
public enum FleetSimulation {
    /// The thirteen standard namespaces, in name order (what `synckernel check` opens a store with).
    public static var standardNamespaces: [any SyncNamespace.Type] {
        Workloads.all.map(\.namespace)
    }

    /// Runs one simulation.
    public static func run(_ config: SimulationConfig) throws -> SimulationReport {
        let started = Date()
        let directory = try config.directory ?? makeTemporaryDirectory(seed: config.seed)
        defer { if config.directory == nil { try? FileManager.default.removeItem(atPath: directory) } }
        var random = SeededGenerator(seed: config.seed)
        let workloads = try selectedWorkloads(config.namespaces)
        let namespaces = try NamespaceSet(workloads.map(\.namespace) + (workloads.isEmpty ? [NotebookNamespace.self] : []))
        let keys = try (0..<config.devices).map { index in
            try DeviceKeyPair(seed: SHA256.hash(domain: Array("synckernel.sim.device".utf8),
                                                 Array("\(config.seed)/\(index)".utf8)))
        }
        let account = SHA256.hash(domain: Array("synckernel.sim.account".utf8), Array("\(config.seed)".utf8))
        let devices = try keys.map { try $0.deviceID }
        let paths = (0..<config.devices).map { "\(directory)/device-\($0).sqlite" }

        var notebook = NotebookWorkload(random: SeededGenerator(seed: random.next()))
        let entropy = EntropySource.seeded(config.seed)
        let seedStore = try KernelStore(path: paths[0], namespaces: namespaces, entropy: entropy)
        try seedStore.configureDevice(devices[0])
        var sharedNotes: [[UInt8]] = []
        if workloads.isEmpty {
            let notes = notebook.sharedNotes(count: config.rows)
            sharedNotes = notes.map(\.id)
            try seedStore.write(NotebookNamespace.self) { tx throws(SyncKernelError) in for note in notes { try tx.save(note) } }
        } else {
            for workload in workloads {
                try workload.seed(seedStore, config.rows / workloads.count, &random, NotebookWorkload.epoch)
            }
        }
        try seedStore.checkpoint()
        seedStore.close()
        for copy in paths.dropFirst() {
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.copyItem(atPath: paths[0], toPath: copy)
        }

        let replicas = try (0..<config.devices).map { index in
            try Replica(device: devices[index], account: account, siblings: devices,
                        store: KernelStore(path: paths[index], namespaces: namespaces, entropy: entropy),
                        mode: index >= config.devices - config.specOnlyDevices ? .spec : config.mode)
        }
        let fleet = Fleet(replicas: replicas, conditions: config.conditions, seed: random.next())
        fleet.announceAll()
        func wallClock(_ device: Int) -> Date {
            let skew = device == config.devices - 1 ? config.clockSkewSeconds : 0
            return NotebookWorkload.epoch.addingTimeInterval(TimeInterval(fleet.now / 1000 + skew))
        }
        if workloads.isEmpty {
            let steps = notebook.differences(count: config.differences, devices: config.devices, existing: sharedNotes,
                                             spanMillis: config.writeSpanMillis)
            for step in steps {
                fleet.run(until: step.atMillis)
                let clock = wallClock(step.device)
                try fleet.write(on: step.device, NotebookNamespace.self) { tx throws(SyncKernelError) in
                    try step.apply(to: tx, wallClock: clock)
                }
            }
        } else {
            for index in 0..<config.differences {
                fleet.run(until: Int64(index) * config.writeSpanMillis / Int64(max(config.differences, 1)))
                let device = Int(random.next() % UInt64(config.devices))
                try workloads[index % workloads.count].change(fleet, device, &random, wallClock(device))
            }
        }
        fleet.run(until: config.limitMillis)
        if config.resolvesConflicts { try resolveConflicts(on: fleet, limit: config.limitMillis) }
        let report = try makeReport(config: config, fleet: fleet, devices: devices, started: started)
        for replica in replicas { replica.store.close() }
        return report
    }

    /// Device 0 resolves every key it holds in conflict, keeping the version it shows, then the
    /// fleet runs until nothing is left to do (at most `limit` more virtual milliseconds).
    private static func resolveConflicts(on fleet: Fleet, limit: Int64) throws {
        let store = fleet.replicas[0].store
        for namespace in store.namespaces.causalEntities {
            for key in try store.conflictedKeys(namespace: namespace) {
                try resolve(key, in: namespace, on: fleet)
            }
        }
        fleet.run(until: fleet.now + limit)
    }

    /// Resolves `key` of `namespace` on device 0 through the namespace's own type.
    private static func resolve(_ key: [UInt8], in namespace: String, on fleet: Fleet) throws {
        guard let type = Workloads.all.first(where: { $0.namespace.name == namespace })?.namespace else { return }
        try resolve(key, type, on: fleet)
    }

    /// Device 0 keeps the version it shows of `key`, over every version it holds.
    private static func resolve<N: SyncNamespace>(_ key: [UInt8], _ namespace: N.Type, on fleet: Fleet) throws {
        try fleet.write(on: 0, namespace) { tx throws(SyncKernelError) in
            let versions = try tx.versions(forKey: key)
            guard versions.count > 1, let shown = versions.first(where: \.isVisible) else { return }
            try tx.resolve(shown.row, over: versions)
        }
    }

    private static func selectedWorkloads(_ names: [String]) throws -> [NamespaceWorkload] {
        if names.isEmpty { return [] }
        if names == ["all"] { return Workloads.all }
        return try names.map { name in
            guard let workload = Workloads.all.first(where: { $0.namespace.name == name }) else {
                throw SyncKernelError(.unknownNamespace, "no simulator workload named \(name)")
            }
            return workload
        }
    }

    private static func makeReport(config: SimulationConfig, fleet: Fleet, devices: [DeviceID],
                                   started: Date) throws -> SimulationReport {
        var links: [SimulationReport.Link] = []
        var framesByKind: [String: Int] = [:]
        var bytesByNamespace: [String: Int] = [:]
        var bytesByKind: [String: Int] = [:]
        for (from, sender) in devices.enumerated() {
            for (to, recipient) in devices.enumerated() where from != to {
                guard let traffic = fleet.relay.traffic[InProcessRelay.Link(from: sender, to: recipient)] else { continue }
                links.append(.init(from: from, to: to, frames: traffic.frames, bytes: traffic.bytes, lost: traffic.lost))
                for (kind, count) in traffic.framesByKind { framesByKind[kind, default: 0] += count }
                for (namespace, bytes) in traffic.bytesByNamespace { bytesByNamespace[namespace, default: 0] += bytes }
                for (kind, bytes) in traffic.bytesByKind { bytesByKind[kind, default: 0] += bytes }
            }
        }
        let replicas = fleet.replicas
        let converged = fleet.allRootsMatch
        let events = fleet.events.map(\.event)
        let names = replicas[0].store.namespaces.names
        var opened: [String: Set<[UInt8]>] = [:]
        var resolved: [String: Set<[UInt8]>] = [:]
        for event in events {
            switch event {
            case .concurrentEdit(let namespace, let key, _): opened[namespace, default: []].insert(key)
            case .conflictResolved(let namespace, let key): resolved[namespace, default: []].insert(key)
            default: break
            }
        }
        let open = try replicas[0].store.openConflictCounts()
        return SimulationReport(
            config: config, converged: converged,
            rounds: replicas.reduce(0) { $0 + $1.roundsStarted },
            frames: links.reduce(0) { $0 + $1.frames }, bytes: links.reduce(0) { $0 + $1.bytes },
            framesByKind: framesByKind, bytesByKind: bytesByKind,
            virtualMillis: converged ? (fleet.convergedAt ?? fleet.now) : fleet.now,
            links: links,
            storms: events.filter { if case .stormSuspected = $0 { return true } else { return false } }.count,
            refusals: events.filter {
                switch $0 {
                case .frameRefused, .applyFailed, .peerSchemaMismatch, .storeFailed: return true
                default: return false
                }
            }.count,
            rowsPerDevice: replicas.map { Int($0.store.itemCounts().reduce(0, +)) },
            namespaces: zip(names, replicas[0].store.itemCounts()).map { name, rows in
                SimulationReport.NamespaceTraffic(name: name, rows: Int(rows), bytes: bytesByNamespace[name] ?? 0,
                                                  conflictsOpened: opened[name]?.count ?? 0, conflictsResolved: resolved[name]?.count ?? 0,
                                                  conflictsOpen: open[name] ?? 0)
            },
            finalRoots: replicas[0].store.stateDigest().roots,
            wallMillis: Int(Date().timeIntervalSince(started) * 1000))
    }

    private static func makeTemporaryDirectory(seed: UInt64) throws -> String {
        let path = NSTemporaryDirectory() + "synckernel-sim-\(seed)-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
