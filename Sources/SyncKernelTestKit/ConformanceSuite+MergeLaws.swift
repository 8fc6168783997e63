import Foundation
import SyncKernel

extension ConformanceSuite {
    /// Merge laws on generated rows: the rule is commutative, associative and idempotent on
    /// leaves; a causal tie-break is a strict order; applying a response twice changes nothing;
    /// merged vectors dominate or equal both inputs; stores that merge the same responses in
    /// either order end equal.
    public func checkMergeLaws() throws {
        var generator = generator(6)
        try checkRuleLaws(&generator)
        try checkStoreLaws(&generator)
    }

    private func checkRuleLaws(_ generator: inout FieldGenerator) throws {
        let leaf = Namespace.leafEncoding(of:)
        for _ in 0..<max(trials * 4, 20) {
            let x = Subject.makeRow(&generator)
            let y = edited(x, &generator)
            let z = edited(x, &generator)
            switch rule {
            case .join:
                let join: (Row, Row) -> Row = { Namespace.joined($0, $1) ?? $0 }
                guard leaf(join(x, y)) == leaf(join(y, x)) else {
                    throw failure(.mergeLaws, field: Harness.blame(join(x, y), join(y, x)).first,
                                  "the join is not commutative: merging in the other order gives another leaf",
                                  leaves: Harness.describe(join(x, y), join(y, x), labels: ("join(x, y)", "join(y, x)")))
                }
                guard leaf(join(join(x, y), z)) == leaf(join(x, join(y, z))) else {
                    throw failure(.mergeLaws, "the join is not associative",
                                  leaves: Harness.describe(join(join(x, y), z), join(x, join(y, z)), labels: ("(x·y)·z", "x·(y·z)")))
                }
                let merged = join(x, y)
                guard leaf(join(merged, merged)) == leaf(merged), leaf(join(merged, x)) == leaf(merged) else {
                    throw failure(.mergeLaws, "the join is not idempotent: merging a row already merged changes it")
                }
            case .causal, .singleWriterLWW:
                guard leaf(x) != leaf(y) else { continue }
                let forward = Namespace.incomingWinsTie(y, over: x)
                let backward = Namespace.incomingWinsTie(x, over: y)
                guard forward != backward else {
                    throw failure(.mergeLaws, "the tie-break is not a strict order: for two different rows it answered \(forward) both ways, so two devices would keep different winners")
                }
            case .insertIfAbsent:
                break
            }
        }
    }

    private func checkStoreLaws(_ generator: inout FieldGenerator) throws {
        let harness = try Harness()
        let clock = Date(timeIntervalSince1970: 1_800_000_000)
        for _ in 0..<max(trials / 2, 2) {
            let a = try harness.store(device: 0)
            let b = try harness.store(device: 1)
            let shared = (0..<6).map { _ in touched(Subject.makeRow(&generator), at: clock) }
            for row in shared {
                try harness.save(row, in: a)
                let variant = isInsertIfAbsent ? row : touched(edited(row, &generator), at: clock.addingTimeInterval(7))
                try harness.save(variant, in: b)
            }
            try harness.save(touched(Subject.makeRow(&generator), at: clock), in: a)
            try harness.save(touched(Subject.makeRow(&generator), at: clock), in: b)
            if isCausal, let victim = shared.first {
                try a.write(Namespace.self) { tx throws(SyncKernelError) in try tx.delete(key: Namespace.key(of: victim)) }
            }
            guard let fromA = try harness.everything(a), let fromB = try harness.everything(b) else { continue }

            let first = try harness.store(device: 2)
            let second = try harness.store(device: 3)
            try first.apply(fromA)
            let once = first.stateDigest()
            let again = try first.apply(fromA)
            guard again.rowsApplied == 0, !again.digestChanged, first.stateDigest() == once else {
                throw failure(.mergeLaws, "applying the same response twice changed the store the second time (not idempotent)")
            }
            try first.apply(fromB)
            try second.apply(fromB)
            try second.apply(fromA)
            guard first.stateDigest() == second.stateDigest() else {
                let key = try firstDifferingKey(first, second)
                throw failure(.mergeLaws, field: try blameKey(key, first, second),
                              "merging the same two responses in the other order gave another state (not commutative)",
                              leaves: Harness.describe(try key.flatMap { try first.row(Namespace.self, key: $0) },
                                                       try key.flatMap { try second.row(Namespace.self, key: $0) },
                                                       labels: ("A then B", "B then A")))
            }
            guard isCausal else { continue }
            for shipped in fromA.rows + fromB.rows {
                guard let incoming = shipped.vector,
                      let row = try? Namespace.decodeRow(bytes: shipped.row),
                      let merged = try first.version(namespace: Namespace.name, key: Namespace.key(of: row))?.vector
                        ?? first.tombstones(namespace: Namespace.name).first(where: { $0.key == Namespace.key(of: row) })?.vector
                else { continue }
                guard [.dominates, .equal].contains(merged.relation(to: incoming)) else {
                    throw failure(.mergeLaws, "a merged vector does not dominate the vector it merged in")
                }
            }
        }
    }

    func firstDifferingKey(_ left: KernelStore, _ right: KernelStore) throws -> [UInt8]? {
        let (a, b) = (try left.leaves(namespace: Namespace.name), try right.leaves(namespace: Namespace.name))
        let mine = Dictionary(uniqueKeysWithValues: a.map { ($0.key, $0.hash) })
        let theirs = Dictionary(uniqueKeysWithValues: b.map { ($0.key, $0.hash) })
        return Set(mine.keys).union(theirs.keys).sorted { $0.lexicographicallyPrecedes($1) }.first { mine[$0] != theirs[$0] }
    }

    func blameKey(_ key: [UInt8]?, _ left: KernelStore, _ right: KernelStore) throws -> String? {
        guard let key, let x = try left.row(Namespace.self, key: key), let y = try right.row(Namespace.self, key: key) else { return nil }
        return Harness.blame(x, y).first
    }
}
