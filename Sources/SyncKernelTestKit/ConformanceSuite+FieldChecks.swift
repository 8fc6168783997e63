import Foundation
import SyncKernel

extension ConformanceSuite {
    /// The declaration is one the kernel accepts, the kit can generate a value for every field it
    /// must exercise, the subject's mutations name declared fields, and `makeRow` mints fresh keys.
    public func checkDeclarations() throws {
        do {
            _ = try NamespaceSet([Namespace.self])
        } catch {
            throw failure(.declarations, "the kernel refuses the declaration: \(error)")
        }
        let fields = declared
        if let name = fields.ungenerable.first {
            throw failure(.declarations, field: name, "the field has a custom codec; give the kit a mutation for it in fieldMutations")
        }
        if let name = fields.strays.first {
            throw failure(.declarations, field: name, "fieldMutations names a field the schema does not declare")
        }
        var generator = generator(1)
        let keys = (0..<4).map { _ in Namespace.key(of: Subject.makeRow(&generator)) }
        guard Set(keys).count == keys.count else {
            throw failure(.declarations, "makeRow returned the same key twice; every row needs a fresh key")
        }
        for _ in 0..<trials {
            let row = Subject.makeRow(&generator)
            for spec in fields.hashed {
                let changed = spec.mutate(row, &generator)
                guard Namespace.isDeviceDerived(changed) == Namespace.isDeviceDerived(row) else {
                    throw failure(.declarations, field: spec.name,
                                  "isDeviceDerived changes with this hashed field; it may read only a field excluded as .deviceDerived, or one edit turns a synced row into one no sibling may hold")
                }
            }
        }
    }

    /// One row never encodes two ways: row and leaf encodings round-trip through the row codec and
    /// the frame codec, re-encode identically, and ignore sub-second noise in dates.
    public func checkCanonicalEncoding() throws {
        var generator = generator(2)
        for trial in 0..<max(trials * 4, 20) {
            let made = Subject.makeRow(&generator)
            let row = trial % 2 == 1 ? edited(made, &generator) : made
            let encoded = Namespace.rowEncoding(of: row)
            let leaf = Namespace.leafEncoding(of: row)
            guard Namespace.leafEncoding(of: row) == leaf, Namespace.rowEncoding(of: row) == encoded else {
                throw failure(.canonicalEncoding, "encoding the same row twice gave different bytes (non-deterministic encoding)")
            }
            let decoded: Row
            do {
                decoded = try Namespace.decodeRow(bytes: encoded)
            } catch {
                throw failure(.canonicalEncoding, "decodeRow refused the namespace's own encoding: \(error)")
            }
            guard Namespace.rowEncoding(of: decoded) == encoded else {
                throw failure(.canonicalEncoding, "re-encoding a decoded row gave different bytes")
            }
            guard Namespace.leafEncoding(of: decoded) == leaf else {
                throw failure(.canonicalEncoding, "a decoded row hashes differently from the row it came from (non-deterministic or lossy leaf encoding)",
                              leaves: Harness.describe(row, decoded, labels: ("original", "decoded")))
            }
            let frame = SyncFrame(account: [UInt8](repeating: 1, count: 32), schema: SchemaFingerprint(value: 1), body:
                .reconcileResponse(ReconcileResponse(namespace: Namespace.name, rows: [ShippedRow(row: encoded, vector: nil)], tombstones: [])))
            guard case .reconcileResponse(let response)? = try? SyncFrame(decoding: frame.encoded()).body,
                  response.rows.first?.row == encoded else {
                throw failure(.canonicalEncoding, "the row did not survive the frame codec byte for byte")
            }
            try checkReadsBack(row, decoded)
            let noisy = Namespace.schema.fields.reduce(row) { $1.perturb($0) ?? $0 }
            guard Namespace.rowEncoding(of: noisy) == encoded, Namespace.leafEncoding(of: noisy) == leaf else {
                let field = Namespace.schema.fields.first { field in
                    let perturbed = field.perturb(row) ?? row
                    return Namespace.rowEncoding(of: perturbed) != encoded || Namespace.leafEncoding(of: perturbed) != leaf
                }?.name
                throw failure(.canonicalEncoding, field: field,
                              "sub-second noise in a date moved the encoding; hold the time with .date or .dateMilliseconds, never as a raw Double",
                              leaves: Harness.describe(row, noisy, labels: ("whole seconds", "with noise")))
            }
        }
        for entry in declared.hashedEntries + declared.excludedEntries {
            for _ in 0..<max(trials, 4) {
                let row = entry.spec.mutate(Subject.makeRow(&generator), &generator)
                guard let decoded = try? Namespace.decodeRow(bytes: Namespace.rowEncoding(of: row)) else { continue }
                try checkReadsBack(row, decoded)
            }
        }
        try checkNoisySaveReachesASibling(&generator)
    }

    /// Every stored property of a decoded row prints as the original's did: a codec that loses
    /// information (a rounded number, a dropped case) reads back another value than was saved.
    private func checkReadsBack(_ row: Row, _ decoded: Row) throws {
        let original = Mirror(reflecting: row).children.map { ($0.label, Array(String(reflecting: $0.value).utf8)) }
        let readBack = Mirror(reflecting: decoded).children.map { ($0.label, Array(String(reflecting: $0.value).utf8)) }
        for (before, after) in zip(original, readBack) where before.1 != after.1 {
            throw failure(.canonicalEncoding, field: before.0,
                          "the row reads back with this field changed: its codec loses information (a rounded number, a dropped case), so a sibling holds another value than was saved",
                          leaves: Harness.describe(row, decoded, labels: ("saved", "read back")))
        }
    }

    /// A row saved with sub-second noise in every date reaches a sibling with the same leaf.
    private func checkNoisySaveReachesASibling(_ generator: inout FieldGenerator) throws {
        let harness = try Harness()
        let (a, b) = (try harness.store(device: 0), try harness.store(device: 1))
        for _ in 0..<max(trials / 2, 2) {
            let row = touched(Subject.makeRow(&generator), at: Date(timeIntervalSince1970: 1_800_000_000.731))
            let noisy = Namespace.schema.fields.reduce(row) { $1.perturb($0) ?? $0 }
            try harness.save(noisy, in: a)
            try harness.pull(into: b, from: a)
            let key = Namespace.key(of: row)
            guard try harness.leafHash(a, key) == harness.leafHash(b, key) else {
                throw failure(.canonicalEncoding, "a row saved with sub-second times reached a sibling with another leaf",
                              leaves: Harness.describe(try a.row(Namespace.self, key: key), try b.row(Namespace.self, key: key),
                                                       labels: ("saved", "sibling")))
            }
        }
    }

    /// Every excluded field is really excluded: changing it leaves the leaf byte-identical, and a
    /// residency change saved locally neither dirties the state nor bumps a vector.
    public func checkExcludedFields() throws {
        var generator = generator(3)
        let harness = try Harness()
        let store = try harness.store(device: 0)
        for spec in declared.excluded {
            for _ in 0..<trials {
                let row = Subject.makeRow(&generator)
                let changed = spec.mutate(row, &generator)
                guard Namespace.leafEncoding(of: row) == Namespace.leafEncoding(of: row) else { continue }
                guard Namespace.leafEncoding(of: changed) == Namespace.leafEncoding(of: row) else {
                    throw failure(.excludedFieldExcluded, field: spec.name, "declared excluded, but changing it changed the leaf",
                                  leaves: Harness.describe(row, changed, labels: ("before", "after")))
                }
                guard Namespace.excludedFields.first(where: { $0.name == spec.name })?.category == .residency,
                      !Namespace.isDeviceDerived(row) else { continue }
                try harness.save(row, in: store)
                let key = Namespace.key(of: row)
                let vector = try store.version(namespace: Namespace.name, key: key)?.vector
                let outcome = try store.write(Namespace.self) { tx throws(SyncKernelError) in try tx.save(changed) }
                guard outcome.changedNamespaces.isEmpty,
                      try store.version(namespace: Namespace.name, key: key)?.vector == vector else {
                    throw failure(.excludedFieldExcluded, field: spec.name, "a residency change was treated as an edit (dirtied the state or bumped the vector)")
                }
            }
        }
    }

    /// Rewriting a received row (stamping it, pinning a key) touches excluded fields only.
    public func checkReceiveRewrite() throws {
        var generator = generator(4)
        for trial in 0..<max(trials, 4) {
            let row = Subject.makeRow(&generator)
            let rewritten = Subject.received(row, at: Date(timeIntervalSince1970: TimeInterval(1_800_000_000 + trial * 3_607)))
            guard Namespace.leafEncoding(of: row) == Namespace.leafEncoding(of: row) else { continue }
            guard Namespace.leafEncoding(of: rewritten) != Namespace.leafEncoding(of: row) else { continue }
            let fields = Harness.blame(row, rewritten)
            throw failure(.receiveRewriteExcluded, field: fields.first,
                          "a device rewrites this field on receipt, so two devices hold different values that no merge converges: a hashed per-device field storms; exclude it",
                          leaves: Harness.describe(row, rewritten, labels: ("sent", "received")))
        }
    }

    /// Every hashed field converges: two replicas holding different values of it reach identical
    /// leaves after reconciling both ways within a bounded number of rounds.
    public func checkHashedFieldsMerge() throws {
        guard !isInsertIfAbsent else { return }
        var generator = generator(5)
        let harness = try Harness()
        let clock = Date(timeIntervalSince1970: 1_800_000_000)
        for spec in declared.hashed {
            for trial in 0..<trials {
                let a = try harness.store(device: 0)
                let b = try harness.store(device: 1)
                let base = touched(Subject.makeRow(&generator), at: clock)
                try harness.save(base, in: a)
                try harness.pull(into: b, from: a)
                let onA = touched(spec.mutate(base, &generator), at: clock.addingTimeInterval(TimeInterval(60 + trial)))
                let onB = touched(spec.mutate(base, &generator), at: clock.addingTimeInterval(TimeInterval(-3_600 - trial)))
                guard Namespace.leafEncoding(of: onA) != Namespace.leafEncoding(of: onB) else { continue }
                try harness.save(onA, in: a)
                try harness.save(onB, in: b)
                let key = Namespace.key(of: base)
                var converged = false
                for _ in 0..<4 where !converged {
                    try harness.pull(into: b, from: a)
                    try harness.pull(into: a, from: b)
                    converged = try harness.leafHash(a, key) == harness.leafHash(b, key)
                }
                if !converged {
                    let (onA, onB) = (try a.row(Namespace.self, key: key), try b.row(Namespace.self, key: key))
                    let differing = onA.flatMap { x in onB.map { Harness.blame(x, $0) } }?.first ?? spec.name
                    throw failure(.hashedFieldMerges, field: differing,
                                  "two replicas holding different values of this hashed field still differ after 4 rounds of reconciling both ways: the merge never converges it (hash a field only if the merge converges it); \(convergenceAdvice)",
                                  leaves: Harness.describe(onA, onB, labels: ("replica A", "replica B")))
                }
            }
        }
    }
}
