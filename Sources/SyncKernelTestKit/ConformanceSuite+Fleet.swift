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
        var retracted: Set<[UInt8]> = []
        var offloaded: [(device: Int, key: [UInt8], original: Row)] = []
        for step in 0..<fleetSteps {
            fleet.run(until: Int64(step * 40))
            if step % 15 == 7 {
                for (index, replica) in replicas.enumerated() {
                    for pass in Subject.localPasses {
                        do {
                            try fleet.write(on: index, Namespace.self) { tx throws(SyncKernelError) in
                                try Harness.rethrowing { try pass.run(tx, epoch.addingTimeInterval(TimeInterval(step))) }
                            }
                        } catch {
                            throw failure(.fleetConvergence, field: pass.name, "the pass failed inside the fleet on device \(index): \(error)")
                        }
                    }
                    _ = replica
                }
            }
            let device = generator.int(0...(size - 1))
            let devicesThisStep = generator.chance(0.15) && size > 1 ? [device, (device + 1) % size] : [device]
            let roll = generator.int(0...99)
            let target = try pickRow(on: replicas[device].store, &generator)
            for writer in devicesThisStep {
                let clock = deviceClock(writer, of: size, step: step, now: fleet.now, epoch: epoch)
                let store = replicas[writer].store
                if let target, isCausal, roll < 12, try store.row(Namespace.self, key: Namespace.key(of: target)) != nil {
                    let key = Namespace.key(of: target)
                    try fleet.write(on: writer, Namespace.self) { tx throws(SyncKernelError) in try tx.delete(key: key) }
                    events.append(FleetEvent(key: key, row: nil,
                                             vector: try store.tombstones(namespace: Namespace.name).first { $0.key == key }?.vector))
                    continue
                }
                if let residency = Subject.residency, let target, roll >= 90,
                   let held = try store.row(Namespace.self, key: Namespace.key(of: target)) {
                    let key = Namespace.key(of: target)
                    try fleet.write(on: writer, Namespace.self) { tx throws(SyncKernelError) in
                        if try Harness.rethrowing({ try residency.offload(tx, key, generator.bytes(32)) }) {
                            offloaded.append((writer, key, held))
                        }
                    }
                    continue
                }
                let held = try target.flatMap { try store.row(Namespace.self, key: Namespace.key(of: $0)) }
                let row: Row
                if let held, let retraction = Subject.retraction, isJoin, roll < 12 {
                    row = localEdit(of: held, edited: touched(retraction.retract(held, &generator, clock), at: clock))
                    retracted.insert(Namespace.key(of: held))
                } else if let held, !isInsertIfAbsent, roll < 70 {
                    let intended = touched(edited(held, &generator), at: clock)
                    row = localEdit(of: held, edited: intended)
                    try checkIntentKept(intended, row, writer: writer)
                } else if writer == device || target == nil || isInsertIfAbsent {
                    row = touched(Subject.makeRow(&generator), at: clock)
                } else {
                    continue
                }
                try fleet.write(on: writer, Namespace.self) { tx throws(SyncKernelError) in try tx.save(row) }
                let key = Namespace.key(of: row)
                guard let stored = try store.row(Namespace.self, key: key) else { continue }
                let size = Namespace.rowEncoding(of: stored).count
                guard size <= 64 << 10 else {
                    throw failure(.fleetConvergence, "a row grew to \(size) bytes by step \(step): the merge grows rows without bound")
                }
                events.append(FleetEvent(key: key, row: stored, vector: try store.version(namespace: Namespace.name, key: key)?.vector))
            }
            guard fleet.sent.count <= 40_000 else {
                throw failure(.fleetConvergence, "the fleet sent \(fleet.sent.count) frames by step \(step): a runaway merge or storm")
            }
        }
        if let residency = Subject.residency {
            for entry in offloaded where try replicas[entry.device].store.row(Namespace.self, key: entry.key) != nil {
                try fleet.write(on: entry.device, Namespace.self) { tx throws(SyncKernelError) in
                    guard let current = try tx.row(forKey: entry.key),
                          Namespace.leafEncoding(of: current) == Namespace.leafEncoding(of: entry.original) else { return }
                    try Harness.rethrowing { try residency.restore(tx, entry.key, entry.original) }
                }
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
        if let retraction = Subject.retraction {
            for key in retracted.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                guard let final = try replicas[0].store.row(Namespace.self, key: key), !retraction.isRetracted(final) else { continue }
                throw failure(.fleetConvergence, "a retraction a device had made (and its siblings had seen) was undone: the merge lets a live copy win over a retracted one",
                              leaves: Harness.describe(final, nil, labels: ("final", "-")))
            }
        }
    }

    /// The wall clock of device `writer` at `step`: the last device runs three hours fast and,
    /// in a fleet of three or more, device 0 runs backwards a minute a step; the others are true.
    private func deviceClock(_ writer: Int, of size: Int, step: Int, now: Int64, epoch: Date) -> Date {
        let real = epoch.addingTimeInterval(TimeInterval(now / 1000) + TimeInterval(step))
        if writer == size - 1 { return real.addingTimeInterval(3 * 3_600) }
        if writer == 0, size > 2 { return epoch.addingTimeInterval(-TimeInterval(step) * 60) }
        return real
    }

    /// Under `.join()`: every register or custom-merged field the edit set kept its value through
    /// the device's own join (the local-edits check, made here under the fleet's clocks). The
    /// value compared is the edited value settled in the row the join produced (that row with
    /// the field set to the edit's value, joined with itself, so `normalize` ran against the other
    /// fields as they were kept: a field whose normal form depends on another field that the
    /// join legitimately kept from the held row is judged against that field).
    private func checkIntentKept(_ intended: Row, _ stored: Row, writer: Int) throws {
        guard isJoin else { return }
        for entry in declared.hashedEntries where entry.field.mergeKind == .register || entry.field.mergeKind == .custom {
            let placed = entry.field.value(intended).flatMap { try? CBORReader.decode($0) }.flatMap { try? entry.field.replacing(stored, $0) }
            guard let settled = placed.flatMap({ Namespace.joined($0, $0) }) ?? Namespace.joined(intended, intended) else { continue }
            guard DeclaredFields<Subject>.item(entry.field, stored) == DeclaredFields<Subject>.item(entry.field, settled) else {
                throw failure(.fleetConvergence, field: entry.spec.name,
                              "device \(writer)'s edit of this field was undone by its own merge (its clock runs fast, slow or backwards): order edits by a Register's counter, never a clock",
                              leaves: Harness.describe(intended, stored, labels: ("edited", "stored")))
            }
        }
    }

    /// A local edit as a correct writer of this rule makes it: joins only ever add information,
    /// so the edit is joined with what the device holds.
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
                let winner = try writes.compactMap(\.row).max {
                    stamp($0) != stamp($1) ? stamp($0) < stamp($1) : try Namespace.incomingWinsTie($1, over: $0)
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
