import Foundation
import SyncKernel

extension ConformanceSuite {
    /// Merge laws on generated rows: the rule is commutative, associative and idempotent on
    /// leaves; a causal tie-break is a strict order; applying a response twice changes nothing;
    /// merged vectors dominate or equal both inputs; stores that merge the same responses in
    /// either order end equal.
    public func checkMergeLaws() throws {
        var generator = generator(6)
        try checkFieldLaws(&generator)
        try checkRuleLaws(&generator)
        try checkStoreLaws(&generator)
    }

    /// `row` with every text in the field in the other Unicode normalisation form (a value Swift's
    /// `String ==` calls equal to the original while its bytes, and so its leaf, differ).
    private func twin(_ row: Row, _ field: SchemaField<Row>) -> Row {
        guard let item = FieldEdits.item(field, row) else { return row }
        let decomposed = ValueShapes.twin(item, decomposed: true)
        let twin = decomposed == item ? ValueShapes.twin(item, decomposed: false) : decomposed
        guard let replaced = try? field.replacing(row, twin),
              (try? Namespace.decodeRow(bytes: Namespace.rowEncoding(of: replaced))) != nil else { return row }
        return replaced
    }

    /// Each field merge on its own: commutative, associative and idempotent on the field's value,
    /// also between a value and its Unicode twin (the same text in the other normalisation form).
    private func checkFieldLaws(_ generator: inout FieldGenerator) throws {
        for entry in declared.hashedEntries where entry.field.mergeName != nil {
            let field = entry.field
            func item(_ row: Row) -> [UInt8]? { DeclaredFields<Subject>.item(field, row) }
            func merged(_ local: Row, _ incoming: Row) -> Row { field.merging(local, incoming) ?? local }
            for trial in 0..<max(trials * 4, 20) {
                let base = Subject.makeRow(&generator)
                let x = entry.spec.mutate(base, &generator)
                let y = trial % 2 == 0 ? twin(x, field) : entry.spec.mutate(base, &generator)
                let z = trial % 4 < 2 ? entry.spec.mutate(base, &generator) : twin(y, field)
                let law: String? = if item(merged(x, y)) != item(merged(y, x)) {
                    "is not commutative: merging in the other order gives another value"
                } else if item(merged(merged(x, y), z)) != item(merged(x, merged(y, z))) {
                    "is not associative"
                } else if item(merged(merged(x, y), merged(x, y))) != item(merged(x, y)) || item(merged(merged(x, y), x)) != item(merged(x, y)) {
                    "is not idempotent: merging a value already merged changes it"
                } else {
                    nil
                }
                if let law {
                    throw failure(.mergeLaws, field: entry.spec.name, "the field merge '\(field.mergeName ?? "")' \(law)",
                                  leaves: Harness.describe(merged(x, y), merged(y, x), labels: ("merge(x, y)", "merge(y, x)")))
                }
            }
        }
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
                    throw failure(.mergeLaws, field: Harness.blame(join(join(x, y), z), join(x, join(y, z))).first, "the join is not associative",
                                  leaves: Harness.describe(join(join(x, y), z), join(x, join(y, z)), labels: ("(x·y)·z", "x·(y·z)")))
                }
                let merged = join(x, y)
                guard leaf(join(merged, merged)) == leaf(merged), leaf(join(merged, x)) == leaf(merged) else {
                    throw failure(.mergeLaws, field: Harness.blame(join(merged, x), merged).first,
                                  "the join is not idempotent: merging a row already merged changes it",
                                  leaves: Harness.describe(merged, join(merged, x), labels: ("join(x, y)", "joined again with x")))
                }
                guard Namespace.rowEncoding(of: join(merged, merged)).count <= Namespace.rowEncoding(of: merged).count * 2 + 64 else {
                    throw failure(.mergeLaws, "the join grows a row each time it runs: a row would grow without bound")
                }
            case .causal, .singleWriterLWW:
                guard leaf(x) != leaf(y) else { continue }
                let forward = try Namespace.incomingWinsTie(y, over: x)
                let backward = try Namespace.incomingWinsTie(x, over: y)
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
