import Foundation
import SyncKernel
import SyncKernelSimulator

extension ConformanceSuite {
    /// One local write the fleet schedule made, as the writing device recorded it.
    struct FleetEvent {
        let key: [UInt8]
        let row: Row?
        let vector: VersionVector?
    }

    /// A fleet of 3 to 5 replicas makes random writes, deletes and concurrent edits over a relay
    /// that loses, duplicates and reorders frames, one clock hours off: at the end every root
    /// matches, the storm guard never tripped, no acknowledged write was lost (a write survives
    /// unless a causally later write or delete replaced it, or a concurrent one won the
    /// deterministic tie) and no deleted row came back.
    public func checkFleetConvergence() throws {
        var generator = generator(7)
        let harness = try Harness()
        let size = generator.int(fleetSizes)
        let devices = try (0..<size).map { try Harness.device($0) }
        let account = SHA256.hash(domain: Array("synckernel.testkit.account".utf8), [1])
        let replicas = try (0..<size).map { index in
            try Replica(device: devices[index], account: account, siblings: devices, store: harness.store(device: index))
        }
        let fleet = Fleet(replicas: replicas,
                          conditions: RelayConditions(latencyMillis: 25, lossRate: 0.15, duplicationRate: 0.1, reorderJitterMillis: 60),
                          seed: generator.random.next())
        let epoch = Date(timeIntervalSince1970: 1_800_000_000)
        var events: [FleetEvent] = []
        for step in 0..<fleetSteps {
            fleet.run(until: Int64(step * 40))
            let device = generator.int(0...(size - 1))
            let devicesThisStep = generator.chance(0.15) && size > 1 ? [device, (device + 1) % size] : [device]
            let roll = generator.int(0...99)
            let target = try pickRow(on: replicas[device].store, &generator)
            for writer in devicesThisStep {
                let skew: TimeInterval = writer == size - 1 ? 3 * 3_600 : 0
                let clock = epoch.addingTimeInterval(TimeInterval(fleet.now / 1000) + skew + TimeInterval(step))
                let store = replicas[writer].store
                if let target, isCausal, roll < 12, try store.row(Namespace.self, key: Namespace.key(of: target)) != nil {
                    let key = Namespace.key(of: target)
                    try fleet.write(on: writer, Namespace.self) { tx throws(SyncKernelError) in try tx.delete(key: key) }
                    events.append(FleetEvent(key: key, row: nil,
                                             vector: try store.tombstones(namespace: Namespace.name).first { $0.key == key }?.vector))
                    continue
                }
                let held = try target.flatMap { try store.row(Namespace.self, key: Namespace.key(of: $0)) }
                let row: Row
                if let held, !isInsertIfAbsent, roll < 70 {
                    row = localEdit(of: held, edited: touched(edited(held, &generator), at: clock))
                } else if writer == device || target == nil || isInsertIfAbsent {
                    row = touched(Subject.makeRow(&generator), at: clock)
                } else {
                    continue
                }
                try fleet.write(on: writer, Namespace.self) { tx throws(SyncKernelError) in try tx.save(row) }
                let key = Namespace.key(of: row)
                guard let stored = try store.row(Namespace.self, key: key) else { continue }
                events.append(FleetEvent(key: key, row: stored, vector: try store.version(namespace: Namespace.name, key: key)?.vector))
            }
        }
        fleet.run(until: 15 * 60 * 1000)
        let storms = fleet.events.compactMap { event -> [String]? in
            if case .stormSuspected(_, let namespaces, _) = event.event { return namespaces } else { return nil }
        }
        guard fleet.allRootsMatch else {
            let other = replicas.dropFirst().first { $0.store.stateDigest() != replicas[0].store.stateDigest() } ?? replicas[0]
            let key = try firstDifferingKey(replicas[0].store, other.store)
            throw failure(.fleetConvergence, field: try blameKey(key, replicas[0].store, other.store),
                          "a fleet of \(size) replicas did not converge" + (storms.isEmpty ? "" : " and the storm guard tripped \(storms.count) times"),
                          leaves: Harness.describe(try key.flatMap { try replicas[0].store.row(Namespace.self, key: $0) },
                                                   try key.flatMap { try other.store.row(Namespace.self, key: $0) },
                                                   labels: ("replica 0", "other replica")))
        }
        guard storms.isEmpty else {
            throw failure(.fleetConvergence, "the fleet converged but the storm guard tripped \(storms.count) times on the way")
        }
        try checkNothingLost(events, final: replicas[0].store)
    }

    /// A local edit as a correct writer of this rule makes it: folds and monotone joins only ever
    /// add information, so the edit is joined with what the device holds.
    private func localEdit(of held: Row, edited: Row) -> Row {
        Namespace.joined(held, edited) ?? edited
    }

    private func pickRow(on store: KernelStore, _ generator: inout FieldGenerator) throws -> Row? {
        let rows = try store.rows(Namespace.self).filter { !Namespace.isDeviceDerived($0) }
        guard !rows.isEmpty, generator.chance(0.75) else { return nil }
        return rows[generator.int(0...(rows.count - 1))]
    }

    /// The oracle: what each key must hold given every write made to it.
    ///
    /// Causal: a live final row must carry the content of a write no other write or delete
    /// causally replaced (a concurrent write may have won the deterministic tie), a deleted one
    /// needs a delete, and the result must equal what one store reaches by merging every write and
    /// delete itself (it may not depend on delivery order). Append-only:
    /// the row exists and is one of its writes. Joins: the join of every write. Single writer: the
    /// write with the greatest stamp.
    private func checkNothingLost(_ events: [FleetEvent], final store: KernelStore) throws {
        let harness = try Harness()
        let reference = try harness.store(device: 99)
        if isCausal { try fold(events, into: reference) }
        let byKey = Dictionary(grouping: events, by: \.key)
        for (key, writes) in byKey.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            let finalRow = try store.row(Namespace.self, key: key)
            let finalLeaf = finalRow.map(Namespace.leafEncoding(of:))
            var problem: String?
            switch rule {
            case .causal:
                let maximal = writes.filter { write in
                    !writes.contains { other in
                        guard let mine = write.vector, let theirs = other.vector else { return false }
                        return mine.relation(to: theirs) == .dominated
                    }
                }
                if let finalLeaf {
                    if !maximal.contains(where: { $0.row.map(Namespace.leafEncoding(of:)) == finalLeaf }) {
                        problem = "the final row carries content that a causally later write or delete had replaced (a lost write or a resurrected row)"
                    }
                } else if !writes.contains(where: { $0.row == nil }) {
                    problem = "the row is gone though nothing deleted it"
                }
                if problem == nil, try reference.row(Namespace.self, key: key).map(Namespace.leafEncoding(of:)) != finalLeaf {
                    problem = "the fleet ended in another state than one store merging every write and delete itself: the merge depends on delivery order"
                }
            case .insertIfAbsent:
                if !writes.compactMap(\.row).map(Namespace.leafEncoding(of:)).contains(where: { $0 == finalLeaf }) {
                    problem = "the row is none of the rows written under its key"
                }
            case .join:
                let rows = writes.compactMap(\.row)
                if let first = rows.first,
                   Namespace.leafEncoding(of: rows.dropFirst().reduce(first) { Namespace.joined($0, $1) ?? $0 }) != finalLeaf {
                    problem = "the final row is not the join of every write: some write's information was lost"
                }
            case .singleWriterLWW(let stamp, _, _):
                let winner = writes.compactMap(\.row).max {
                    stamp($0) != stamp($1) ? stamp($0) < stamp($1) : Namespace.incomingWinsTie($1, over: $0)
                }
                if winner.map(Namespace.leafEncoding(of:)) != finalLeaf {
                    problem = "the final row is not the write with the greatest stamp"
                }
            }
            guard let problem else { continue }
            throw failure(.fleetConvergence, field: finalRow.flatMap { final in
                writes.compactMap(\.row).last.flatMap { Harness.blame($0, final).first }
            }, problem + " (\(writes.count) writes to this key)", leaves: report(writes, finalRow))
        }
    }

    /// Merges every write and delete into one store directly, in schedule order.
    private func fold(_ events: [FleetEvent], into store: KernelStore) throws {
        for event in events {
            if let row = event.row {
                try store.apply(ReconcileResponse(namespace: Namespace.name,
                                                  rows: [ShippedRow(row: Namespace.rowEncoding(of: row), vector: event.vector)],
                                                  tombstones: []))
            } else if let vector = event.vector {
                try store.apply(ReconcileResponse(namespace: Namespace.name, rows: [],
                                                  tombstones: [Tombstone(key: event.key, vector: vector)]))
            }
        }
    }

    private func report(_ writes: [FleetEvent], _ finalRow: Row?) -> [String] {
        writes.enumerated().map { index, write in
            let leaf = write.row.map { Hex.short(Namespace.leaf(of: $0).hash) } ?? "deleted"
            let vector = write.vector.map { $0.counters.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }
                .joined(separator: ",") } ?? "-"
            return "write \(index): \(leaf) vector {\(vector)}"
        } + ["final: " + (finalRow.map { Hex.short(Namespace.leaf(of: $0).hash) } ?? "deleted")]
            + Harness.describe(writes.compactMap(\.row).last, finalRow, labels: ("last write", "final row"))
    }
}
