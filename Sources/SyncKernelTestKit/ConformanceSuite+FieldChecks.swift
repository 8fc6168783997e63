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
    }

    /// One row never encodes two ways: row and leaf encodings round-trip through the row codec and
    /// the frame codec, re-encode identically, and ignore sub-second noise in dates.
    public func checkCanonicalEncoding() throws {
        var generator = generator(2)
        for _ in 0..<max(trials * 4, 20) {
            let row = Subject.makeRow(&generator)
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
            for spec in declared.hashed + declared.excluded {
                guard let noise = spec.addSubSecondNoise else { continue }
                guard Namespace.leafEncoding(of: noise(row)) == leaf else {
                    throw failure(.canonicalEncoding, field: spec.name, "sub-second noise in a date moved the leaf; write dates with CanonicalWriter.write(_: Date)")
                }
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
                    throw failure(.hashedFieldMerges, field: spec.name,
                                  "two replicas holding different values of this hashed field still differ after 4 rounds of reconciling both ways: the merge never converges it (hash a field only if the merge converges it)",
                                  leaves: Harness.describe(try a.row(Namespace.self, key: key), try b.row(Namespace.self, key: key),
                                                           labels: ("replica A", "replica B")))
                }
            }
        }
    }

    /// Local passes are idempotent: running one twice in a row moves nothing the second time.
    public func checkLocalPasses() throws {
        let harness = try Harness()
        let clock = Date(timeIntervalSince1970: 1_800_000_000)
        for pass in Subject.localPasses {
            let store = try harness.store(device: 0)
            try store.write(Namespace.self) { tx throws(SyncKernelError) in
                do { try pass.run(tx, clock) } catch let error as SyncKernelError { throw error } catch {
                    throw SyncKernelError(.namespaceRefused, "local pass failed")
                }
            }
            let first = store.stateDigest()
            try store.write(Namespace.self) { tx throws(SyncKernelError) in
                do { try pass.run(tx, clock) } catch let error as SyncKernelError { throw error } catch {
                    throw SyncKernelError(.namespaceRefused, "local pass failed")
                }
            }
            guard store.stateDigest() == first else {
                throw failure(.localPassIdempotent, field: pass.name,
                              "running the pass again over the same source moved the digest: it re-mints ids or rewrites synced rows; derive its rows per device (isDeviceDerived) or key them by their source")
            }
        }
    }
}
