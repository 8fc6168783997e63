import Foundation
import SyncKernel
import SyncKernelSimulator

/// One soak fleet, from its seed to its verdict.
///
/// The run: device 0 writes `rowsPerNamespace` rows in each of the thirteen namespaces and its
/// store file is copied to every other device and to the oracle; then, for the plan's active
/// time, steps a random 0 to 1.2 s apart each make one random move: a local write on a running
/// device (72 in 100; one in ten is followed at once by a crash of the writer, before the write's
/// digest goes out), a crash (8 in 100, restarted from its SQLite file 0.1 to 10 s later as a new
/// `Replica` over a newly opened store), an isolation (7 in 100, back on the relay 0.5 to 15 s
/// later), a partition of the relay into two sides (6 in 100 while none holds, healed 1 to 20 s
/// later) or nothing. Each device stamps its writes with its own wall clock, off by its planned
/// offset. When the active time ends every fault is repaired at once, writes stop, and the fleet
/// runs for `SoakPlan.settleMillis` of virtual time or until nothing is left to do.
///
/// Invariants: every random choice comes from one generator seeded with the fleet's seed and
/// time is the fleet's virtual clock, so a seed replays the run exactly; real time is only
/// measured, never consulted. Every acknowledged write is merged into the oracle right after it
/// commits. The checks (`verdict()`) run only after the settle time.
final class SoakFleet {
    /// A repair due at a virtual time.
    private enum Repair {
        case restart(Int)
        case reconnect(Int)
        case heal
    }

    private let plan: SoakPlan
    private var random: SeededGenerator
    private let directory: String
    private let namespaces: NamespaceSet
    private let workloads = Workloads.all
    private let account: [UInt8]
    private let devices: [DeviceID]
    private let paths: [String]
    /// Where every store of the fleet draws its epoch nonces: seeded, so a fleet replays bit for bit.
    private let entropy: EntropySource
    private let fleet: Fleet
    private let oracle: SoakOracle
    private var isolated: Set<Int> = []
    private var partitioned = false
    private var repairs: [(at: Int64, repair: Repair)] = []
    private var failures: [SoakFailure] = []
    private var writes = 0
    private var crashes = 0
    private var crashesAfterWrite = 0
    private var partitions = 0
    private var isolations = 0

    /// Builds fleet `seed` in `directory`: the plan, the seeded stores, the replicas and the oracle.
    init(seed: UInt64, directory: String) throws {
        var random = SeededGenerator(seed: seed)
        plan = SoakPlan(seed: seed, random: &random)
        self.directory = directory
        namespaces = try NamespaceSet(workloads.map(\.namespace))
        func identity(_ name: String) throws(SyncKernelError) -> DeviceID {
            try DeviceKeyPair(seed: SHA256.hash(domain: Array("synckernel.soak.device".utf8), Array("\(seed)/\(name)".utf8)))
                .deviceID
        }
        devices = try (0..<plan.devices).map { index throws(SyncKernelError) in try identity("\(index)") }
        account = SHA256.hash(domain: Array("synckernel.soak.account".utf8), Array("\(seed)".utf8))
        paths = (0..<plan.devices).map { "\(directory)/device-\($0).sqlite" }
        let oraclePath = "\(directory)/oracle.sqlite"

        let entropy = EntropySource.seeded(seed)
        self.entropy = entropy
        let seedStore = try KernelStore(path: paths[0], namespaces: namespaces, entropy: entropy)
        try seedStore.configureDevice(devices[0])
        let start = NotebookWorkload.epoch.addingTimeInterval(TimeInterval(plan.skewSeconds[0]))
        for workload in workloads {
            try workload.seed(seedStore, plan.rowsPerNamespace, &random, start)
        }
        try seedStore.checkpoint()
        seedStore.close()
        for copy in paths.dropFirst() + [oraclePath] {
            try FileManager.default.copyItem(atPath: paths[0], toPath: copy)
        }
        oracle = try SoakOracle(path: oraclePath, namespaces: namespaces, device: identity("oracle"), entropy: entropy)
        let (devices, account, paths, namespaces) = (devices, account, paths, namespaces)
        let replicas = try (0..<plan.devices).map { index in
            try Replica(device: devices[index], account: account, siblings: devices,
                        store: KernelStore(path: paths[index], namespaces: namespaces, entropy: entropy))
        }
        fleet = Fleet(replicas: replicas, conditions: plan.conditions, seed: random.next())
        self.random = random
    }

    /// Closes every open store (the oracle's too).
    func close() {
        for (index, replica) in fleet.replicas.enumerated() where !fleet.crashed.contains(index) {
            replica.store.close()
        }
        oracle.store.close()
    }

    /// Runs the fleet and checks it.
    func run(wallMillis: () -> Int) -> SoakFleetResult {
        fleet.announceAll()
        var time: Int64 = 0
        while true {
            let next = time + Int64(random.next() % 1_200)
            guard next < plan.activeMillis else { break }
            runRepairs(upTo: next)
            fleet.run(until: next)
            time = next
            step()
        }
        runRepairs(upTo: plan.activeMillis)
        fleet.run(until: plan.activeMillis)
        while !repairs.isEmpty { perform(repairs.removeFirst().repair) }
        let quiet = fleet.now
        fleet.run(until: quiet + SoakPlan.settleMillis)
        return verdict(quiet: quiet, wallMillis: wallMillis)
    }

    // MARK: Moves

    /// One random move at the current virtual time.
    private func step() {
        let running = fleet.replicas.indices.filter { !fleet.crashed.contains($0) }
        let connected = running.filter { !isolated.contains($0) }
        let roll = random.next() % 100
        switch roll {
        case 0..<72:
            guard let device = pick(running) else { return }
            write(on: device)
        case 72..<80:
            guard let device = pick(connected) else { return }
            crash(device)
        case 80..<87:
            guard let device = pick(connected) else { return }
            fleet.disconnect(device)
            isolated.insert(device)
            isolations += 1
            schedule(.reconnect(device), after: 500 + Int64(random.next() % 14_501))
        case 87..<93:
            guard !partitioned else { return }
            partition()
        default:
            return
        }
    }

    /// A uniformly chosen element of `indexes`, nil when it is empty.
    private func pick(_ indexes: [Int]) -> Int? {
        indexes.isEmpty ? nil : indexes[Int(random.next() % UInt64(indexes.count))]
    }

    /// A random workload's change on `device`, merged into the oracle once it commits; one in
    /// ten is followed by a crash of the writer before its digest goes out.
    private func write(on device: Int) {
        let workload = workloads[Int(random.next() % UInt64(workloads.count))]
        let store = fleet.replicas[device].store
        let clock = NotebookWorkload.epoch.addingTimeInterval(TimeInterval(fleet.now / 1000 + plan.skewSeconds[device]))
        do {
            let before = try SoakSnapshot(store, namespace: workload.namespace.name)
            try workload.change(fleet, device, &random, clock)
            if try oracle.merge(writeOn: store, before: before) { writes += 1 }
        } catch {
            failures.append(SoakFailure(kind: .error, detail: "a write on device \(device) in \(workload.namespace.name) "
                                        + "at \(fleet.now) ms threw \(error)"))
            return
        }
        if !isolated.contains(device), random.chance(0.1) {
            crashesAfterWrite += 1
            crash(device)
        }
    }

    /// Crashes `device` and schedules its restart.
    private func crash(_ device: Int) {
        fleet.crash(device)
        crashes += 1
        schedule(.restart(device), after: 100 + Int64(random.next() % 9_901))
    }

    /// Cuts the relay into two random non-empty sides and schedules the heal.
    private func partition() {
        var order = Array(fleet.replicas.indices)
        for index in order.indices.dropLast().reversed() {
            order.swapAt(index + 1, Int(random.next() % UInt64(index + 2)))
        }
        let cut = 1 + Int(random.next() % UInt64(order.count - 1))
        fleet.partition([Array(order[..<cut]), Array(order[cut...])])
        partitioned = true
        partitions += 1
        schedule(.heal, after: 1_000 + Int64(random.next() % 19_001))
    }

    /// Queues `repair` `delay` milliseconds from now, after every repair due no later.
    private func schedule(_ repair: Repair, after delay: Int64) {
        let at = fleet.now + delay
        let index = repairs.firstIndex { $0.at > at } ?? repairs.count
        repairs.insert((at, repair), at: index)
    }

    /// Runs the fleet up to each repair due by `limit` and performs it.
    private func runRepairs(upTo limit: Int64) {
        while let first = repairs.first, first.at <= limit {
            fleet.run(until: first.at)
            perform(repairs.removeFirst().repair)
        }
    }

    private func perform(_ repair: Repair) {
        switch repair {
        case .restart(let device):
            do {
                let store = try KernelStore(path: paths[device], namespaces: namespaces, entropy: entropy)
                fleet.restart(device, with: try Replica(device: devices[device], account: account, siblings: devices,
                                                        store: store))
            } catch {
                failures.append(SoakFailure(kind: .error, detail: "device \(device) did not restart at \(fleet.now) ms: \(error)"))
            }
        case .reconnect(let device):
            fleet.reconnect(device)
            isolated.remove(device)
        case .heal:
            fleet.heal()
            partitioned = false
        }
    }

    // MARK: Checks

    /// Checks the settled fleet: convergence, the oracle, the structures, storms and failed merges.
    private func verdict(quiet: Int64, wallMillis: () -> Int) -> SoakFleetResult {
        let replicas = fleet.replicas
        let converged = fleet.allRootsMatch && fleet.crashed.isEmpty
        if converged {
            for (index, replica) in replicas.enumerated() {
                do {
                    failures += try oracle.mismatches(replica.store, device: index)
                } catch {
                    failures.append(SoakFailure(kind: .error, detail: "device \(index) could not be read: \(error)"))
                }
            }
        } else {
            failures.append(SoakFailure(kind: .notConverged, detail: divergence()))
        }
        let running = replicas.indices.filter { !fleet.crashed.contains($0) }
        for (name, store) in running.map({ ("device \($0)", replicas[$0].store) }) + [("the oracle", oracle.store)] {
            do {
                try store.verifyStructures()
            } catch {
                failures.append(SoakFailure(kind: .structure, detail: "\(name): \(error)"))
            }
        }
        let index = Dictionary(uniqueKeysWithValues: devices.enumerated().map { ($0.element, $0.offset) })
        var storms: [String] = []
        var failedMerges: [String] = []
        var refusals = 0
        var damage: [String] = []
        for (time, device, event) in fleet.events {
            let name = index[device].map(String.init) ?? "?"
            switch event {
            case .stormSuspected(let peer, let namespaces, _):
                storms.append("device \(name) with \(index[peer].map(String.init) ?? "?") at \(time) ms over "
                              + namespaces.joined(separator: ","))
            case .applyFailed(_, let namespace, let error):
                failedMerges.append("device \(name) in \(namespace) at \(time) ms: \(error)")
            case .storeFailed(let error):
                failedMerges.append("device \(name) at \(time) ms: \(error)")
            case .frameRefused:
                refusals += 1
            case .rowsQuarantined(let rows):
                damage.append("device \(name) quarantined \(rows.count) rows at \(time) ms")
            case .versionsCollided(_, let namespace, let keys):
                damage.append("device \(name) told apart \(keys.count) collided keys in \(namespace) at \(time) ms")
            case .storeRolledBack(let reason, _, let peer):
                if let peer {
                    damage.append("device \(name) shown behind by \(index[peer].map(String.init) ?? "?") at \(time) ms (\(reason))")
                }
            case .peerSchemaMismatch, .applied, .converged, .concurrentEdit, .conflictResolved, .operationsRefused, .backfillConflict,
                 .siblingCapabilities:
                break
            }
        }
        if !damage.isEmpty {
            failures.append(SoakFailure(kind: .damage, detail: "\(damage.count), first: \(damage[0])"))
        }
        if !storms.isEmpty {
            failures.append(SoakFailure(kind: .storm, detail: "\(storms.count) trips, first: \(storms[0])"))
        }
        if !failedMerges.isEmpty {
            failures.append(SoakFailure(kind: .applyFailed, detail: "\(failedMerges.count), first: \(failedMerges[0])"))
        }
        let traffic = fleet.relay.traffic.values
        let settled = converged ? max(0, (fleet.convergedAt ?? fleet.now) - quiet) : fleet.now - quiet
        return SoakFleetResult(
            seed: plan.seed, plan: plan.summary, devices: plan.devices, writes: writes, crashes: crashes,
            crashesAfterWrite: crashesAfterWrite, partitions: partitions, isolations: isolations,
            frames: traffic.reduce(0) { $0 + $1.frames }, bytes: traffic.reduce(0) { $0 + $1.bytes },
            lostFrames: traffic.reduce(0) { $0 + $1.lost }, storms: storms.count, refusals: refusals,
            settleMillis: settled, wallMillis: wallMillis(), trace: trace(index), failures: failures)
    }

    /// How the devices still differ: distinct digests and the namespaces whose roots differ.
    private func divergence() -> String {
        let digests = fleet.replicas.map { $0.store.stateDigest() }
        let distinct = Set(digests.map { $0.encoded() }).count
        let names = namespaces.names.enumerated().filter { position, _ in
            Set(digests.map { $0.roots[position] }).count > 1
        }.map(\.element)
        let down = fleet.crashed.sorted().map(String.init).joined(separator: ",")
        return "\(distinct) distinct digests over \(digests.count) devices after \(fleet.now) virtual ms, "
            + "differing in \(names.isEmpty ? "none" : names.joined(separator: ","))"
            + (down.isEmpty ? "" : "; devices still down: \(down)")
    }

    /// The run's fingerprint: every published frame's time, link and kind, each link's traffic,
    /// every device's final digest and the oracle's, hashed.
    private func trace(_ index: [DeviceID: Int]) -> String {
        var bytes: [UInt8] = []
        func append(_ value: Int64) {
            bytes += (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
        for (time, from, to, kind) in fleet.sent {
            append(time)
            append(Int64(index[from] ?? -1))
            append(Int64(index[to] ?? -1))
            bytes += Array(kind.utf8) + [0]
        }
        for from in devices {
            for to in devices where from != to {
                let traffic = fleet.relay.traffic[InProcessRelay.Link(from: from, to: to)]
                for value in [traffic?.frames, traffic?.bytes, traffic?.lost] { append(Int64(value ?? 0)) }
            }
        }
        for replica in fleet.replicas { bytes += replica.store.encodedStateDigest() }
        bytes += oracle.store.encodedStateDigest()
        return Hex.encode(SHA256.hash(domain: Array("synckernel.soak.trace".utf8), bytes))
    }
}
