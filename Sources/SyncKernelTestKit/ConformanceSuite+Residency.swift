import Foundation
import SyncKernel

extension ConformanceSuite {
    /// Offloading keeps the leaf and restoring brings the content back, on this device and on a
    /// sibling: for each trial a row is offloaded through the subject's `residency` (the leaf,
    /// the version vector and the digest must not move, and nothing may be marked dirty), a
    /// sibling pulls the offloaded copy (it must hash the same), a resident sibling and the
    /// offloading device reconcile both ways (neither may lose the content), and restoring from
    /// the original brings back the same hashed content.
    public func checkResidency() throws {
        guard let residency = Subject.residency else { return }
        var generator = generator(10)
        let harness = try Harness()
        for _ in 0..<max(trials, 3) {
            let (a, b, c) = (try harness.store(device: 0), try harness.store(device: 1), try harness.store(device: 2))
            let original = touched(Subject.makeRow(&generator), at: Date(timeIntervalSince1970: 1_800_000_000))
            let key = Namespace.key(of: original)
            try harness.save(original, in: a)
            try harness.pull(into: c, from: a)
            let (leaf, vector, digest) = (try harness.leafHash(a, key), try a.version(namespace: Namespace.name, key: key)?.vector,
                                          a.stateDigest())
            var offloaded = false
            let outcome = try a.write(Namespace.self) { tx throws(SyncKernelError) in
                offloaded = try Harness.rethrowing { try residency.offload(tx, key, generator.bytes(32)) }
            }
            guard offloaded else { continue }
            guard outcome.changedNamespaces.isEmpty, a.stateDigest() == digest, try harness.leafHash(a, key) == leaf,
                  try a.version(namespace: Namespace.name, key: key)?.vector == vector else {
                throw failure(.residency, field: try blameStored(key, original, a),
                              "offloading moved the leaf, the digest or the version vector: where bytes live must not look like an edit (hash the content through a digest the offloaded copy keeps, and leave the change stamp alone)",
                              leaves: Harness.describe(original, try a.row(Namespace.self, key: key), labels: ("resident", "offloaded")))
            }
            try harness.pull(into: b, from: a)
            try harness.pull(into: c, from: a)
            try harness.pull(into: a, from: c)
            guard try harness.leafHash(b, key) == leaf, try harness.leafHash(c, key) == leaf else {
                throw failure(.residency, "a sibling that pulled the offloaded copy hashes it differently",
                              leaves: Harness.describe(original, try b.row(Namespace.self, key: key), labels: ("resident", "sibling")))
            }
            try a.write(Namespace.self) { tx throws(SyncKernelError) in
                try Harness.rethrowing { try residency.restore(tx, key, original) }
            }
            guard let restored = try a.row(Namespace.self, key: key),
                  Namespace.leafEncoding(of: restored) == Namespace.leafEncoding(of: original),
                  declared.hashedEntries.allSatisfy({ DeclaredFields<Subject>.item($0.field, restored) == DeclaredFields<Subject>.item($0.field, original) }),
                  let resident = try c.row(Namespace.self, key: key),
                  Namespace.leafEncoding(of: resident) == Namespace.leafEncoding(of: original) else {
                throw failure(.residency, field: try blameStored(key, original, a),
                              "restoring did not bring back the content that was offloaded",
                              leaves: Harness.describe(original, try a.row(Namespace.self, key: key), labels: ("original", "restored")))
            }
        }
    }

    private func blameStored(_ key: [UInt8], _ original: Row, _ store: KernelStore) throws -> String? {
        try store.row(Namespace.self, key: key).flatMap { Harness.blame(original, $0).first }
    }
}
