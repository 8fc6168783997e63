import Foundation
import SyncKernel
import SyncKernelSimulator

/// How the simulator seeds and changes one namespace, type-erased so a run can mix namespaces.
///
/// Invariant: every random choice comes from the generator passed in, so a workload is
/// deterministic for a seed; every change goes through the fleet's replica write path.
struct NamespaceWorkload: Sendable {
    /// The namespace driven.
    let namespace: any SyncNamespace.Type
    /// Writes `count` shared rows into a store (device 0's, before it is copied).
    let seed: @Sendable (_ store: KernelStore, _ count: Int, _ random: inout SeededGenerator, _ clock: Date) throws -> Void
    /// Makes one local change on replica `device` of `fleet`.
    let change: @Sendable (_ fleet: Fleet, _ device: Int, _ random: inout SeededGenerator, _ clock: Date) throws -> Void
    /// Makes one new row (a `namespace.Row`) on its own, for a namespace whose rows need no other
    /// rows; nil for the others.
    var make: (@Sendable (_ random: inout SeededGenerator, _ clock: Date) -> any Sendable)?

    /// A causal namespace: edits, inserts and deletes of rows any device may change.
    static func causal<N: SyncNamespace>(_ namespace: N.Type,
                                         make: @escaping @Sendable (inout SeededGenerator, Date) -> N.Row,
                                         edit: @escaping @Sendable (N.Row, inout SeededGenerator, Date) -> N.Row) -> NamespaceWorkload {
        NamespaceWorkload(namespace: N.self, seed: { store, count, random, clock in
            let rows = (0..<count).map { _ in make(&random, clock) }
            try store.write(N.self) { tx throws(SyncKernelError) in for row in rows { try tx.save(row) } }
        }, change: { fleet, device, random, clock in
            try fleet.write(on: device, N.self) { tx throws(SyncKernelError) in
                let rows = try tx.allRows()
                let roll = random.next() % 100
                guard !rows.isEmpty, roll >= 30 else { return try tx.save(make(&random, clock)) }
                let row = rows[Int(random.next() % UInt64(rows.count))]
                if roll < 85 {
                    try tx.save(edit(row, &random, clock))
                } else {
                    try tx.delete(key: N.key(of: row))
                }
            }
        }, make: { random, clock in make(&random, clock) })
    }

    /// An append-only namespace: every change is a new row.
    static func appendOnly<N: SyncNamespace>(_ namespace: N.Type,
                                             make: @escaping @Sendable (inout SeededGenerator, Date) -> N.Row) -> NamespaceWorkload {
        NamespaceWorkload(namespace: N.self, seed: { store, count, random, clock in
            let rows = (0..<count).map { _ in make(&random, clock) }
            try store.write(N.self) { tx throws(SyncKernelError) in for row in rows { try tx.save(row) } }
        }, change: { fleet, device, random, clock in
            let row = make(&random, clock)
            try fleet.write(on: device, N.self) { tx throws(SyncKernelError) in try tx.save(row) }
        }, make: { random, clock in make(&random, clock) })
    }
}
